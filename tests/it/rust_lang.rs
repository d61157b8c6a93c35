//! Fixture tests for rust_lang: the exact graph of fixtures/rust.

use std::path::Path;

fn render() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rust");
    refgraph::index::render(&root)
}

#[track_caller]
fn has(out: &str, line: &str) {
    assert!(
        out.lines().any(|l| l == line),
        "missing line:\n{line}\n--- graph ---\n{out}"
    );
}

#[track_caller]
fn lacks(out: &str, fragment: &str) {
    assert!(
        !out.lines().any(|l| l.contains(fragment)),
        "unexpected `{fragment}` in:\n{}",
        out.lines()
            .filter(|l| l.contains(fragment))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The whole graph, reviewed line by line against what rust-analyzer
/// answers for `definition` at each site; the tricky lines are also
/// asserted below so a blind snapshot update cannot lose them.
#[test]
fn fixture_graph() {
    let out = render();
    insta::assert_snapshot!(out);

    // Keys: `lib.rs` and `main.rs` are both the crate `shop`; methods are
    // `Type::method` for inherent and trait impls, `Trait::method` in traits;
    // integration tests are crates of their own.
    has(
        &out,
        "N method shop::payments::stripe::Stripe::charge src/payments/stripe.rs:22:8-30",
    );
    has(
        &out,
        "N method shop::payments::gateway::Gateway::describe src/payments/gateway.rs:34:8-36",
    );
    has(&out, "N function shop::money src/lib.rs:5:14-9");
    has(
        &out,
        "N test checkout::pays_with_stripe tests/checkout.rs:15:4-23 private",
    );
    has(&out, "N test shop::services::checkout::tests::validates_cart src/services/checkout.rs:121:8-124 private");
    // A helper in `#[cfg(test)] mod tests` without `#[test]` stays a function.
    has(&out, "N function shop::services::checkout::tests::cart src/services/checkout.rs:113:8-118 private");

    // Same-named `validate`: the alias `auth_validate` is auth's; the bare
    // name in checkout is checkout's own; `checkout::validate` in main.rs
    // goes through the module, not the local variable `checkout`.
    has(&out, "E calls shop::services::checkout::validate -> shop::auth::validate @ src/services/checkout.rs:37:25 syntactic 0.95");
    has(&out, "E calls shop::services::checkout::Checkout::pay -> shop::services::checkout::validate @ src/services/checkout.rs:63:45 syntactic 0.95");
    has(&out, "E calls shop::main -> shop::services::checkout::validate @ src/main.rs:19:23 syntactic 0.95");
    has(&out, "E calls checkout::tokens_and_users -> shop::auth::validate @ tests/checkout.rs:34:13 syntactic 0.95");
    // The closure `validate` shadows the fn: no edge from count_valid.
    lacks(
        &out,
        "E calls shop::services::checkout::count_valid -> shop::services::checkout::validate",
    );

    // Same method name on differently typed receivers.
    has(&out, "E calls shop::services::checkout::compare -> shop::payments::stripe::Stripe::charge @ src/services/checkout.rs:92:24 inferred 0.8");
    has(&out, "E calls shop::services::checkout::compare -> shop::payments::paypal::Paypal::charge @ src/services/checkout.rs:93:25 inferred 0.8");
    // `&dyn Gateway`, `G: Gateway` and `Box<dyn Gateway>` fields: the trait's method.
    has(&out, "E calls shop::services::checkout::charge_dyn -> shop::payments::gateway::Gateway::charge @ src/services/checkout.rs:80:13 inferred 0.8");
    has(&out, "E calls shop::services::checkout::charge_generic -> shop::payments::gateway::Gateway::charge @ src/services/checkout.rs:85:13 inferred 0.8");
    has(&out, "E calls shop::services::checkout::Checkout::pay -> shop::payments::gateway::Gateway::charge @ src/services/checkout.rs:70:27 inferred 0.8");
    // Override vs default method: Paypal overrides `describe`, Stripe does not.
    has(&out, "E calls shop::services::checkout::compare -> shop::payments::paypal::Paypal::describe @ src/services/checkout.rs:94:23 inferred 0.8");
    has(&out, "E calls shop::services::checkout::compare -> shop::payments::gateway::Gateway::describe @ src/services/checkout.rs:95:23 inferred 0.8");
    // `<Stripe as Gateway>::charge` is Stripe's impl (rust-analyzer resolves
    // a trait fn on a known self type to the impl); `Gateway` is a reference.
    has(&out, "E calls shop::services::checkout::compare -> shop::payments::stripe::Stripe::charge @ src/services/checkout.rs:96:38 syntactic 0.95");
    has(&out, "E references shop::services::checkout::compare -> shop::payments::gateway::Gateway @ src/services/checkout.rs:96:28 syntactic 0.9");
    // `self.m()` in an impl and in a trait default method.
    has(&out, "E calls shop::payments::stripe::Stripe::refund -> shop::payments::stripe::Stripe::charge @ src/payments/stripe.rs:35:14 syntactic 0.9");
    has(&out, "E calls shop::payments::gateway::Gateway::describe -> shop::payments::gateway::Gateway::name @ src/payments/gateway.rs:35:36 syntactic 0.9");
    // Return types carry the receiver: `checkout.pay(..).expect(..)` is a Receipt.
    has(&out, "E calls checkout::pays_with_stripe -> shop::payments::gateway::Receipt::is_paid @ tests/checkout.rs:22:21 inferred 0.8");
    // `Type::new()`: a call of the assoc fn and a reference to the type;
    // `Self::new` is the same call, and `Self` in an impl is a reference to
    // the type (rust-analyzer's references include it).
    has(&out, "E calls shop::services::checkout::compare -> shop::payments::stripe::Stripe::new @ src/services/checkout.rs:90:26 syntactic 0.95");
    has(&out, "E references shop::services::checkout::compare -> shop::payments::stripe::Stripe @ src/services/checkout.rs:90:18 syntactic 0.9");
    has(&out, "E calls shop::services::checkout::Checkout::with_stripe -> shop::services::checkout::Checkout::new @ src/services/checkout.rs:59:15 syntactic 0.95");
    has(
        &out,
        "E references shop::services::checkout::Checkout::with_stripe -> shop::services::checkout::Checkout @ src/services/checkout.rs:59:9 syntactic 0.95",
    );

    // A fn passed as a callback is a reference, not a call.
    has(&out, "E references shop::services::checkout::Checkout::pay -> shop::services::checkout::apply_discount @ src/services/checkout.rs:68:25 syntactic 0.95");
    // `validate` at 63:45 follows "naïve café" on its line: columns count
    // UTF-8 bytes (45, not 43).

    // Macros: a local `macro_rules!`, the crate's `#[macro_export]` one
    // textually (`money!` inside `log_event!`'s arguments), by `crate::`
    // path, and from the binary by the crate's name.
    has(&out, "E calls shop::services::checkout::compare -> shop::services::checkout::log_event @ src/services/checkout.rs:94:5 syntactic 0.95");
    has(&out, "E calls shop::services::checkout::Checkout::pay -> shop::money @ src/services/checkout.rs:69:27 syntactic 0.95");
    has(
        &out,
        "E calls shop::main -> shop::money @ src/main.rs:14:52 syntactic 0.95",
    );

    // `use` leaves are references; re-exports through `pub use` are
    // `ReExport` (0.9); the module of the path is imported.
    has(&out, "E references shop::services::checkout -> shop::payments::paypal::Paypal @ src/services/checkout.rs:4:30 syntactic 0.95");
    has(&out, "E references shop::services::checkout -> shop::payments::gateway::Gateway @ src/services/checkout.rs:5:23 syntactic 0.9");
    has(
        &out,
        "E references shop -> shop::payments::stripe::Stripe @ src/main.rs:5:28 syntactic 0.9",
    );
    has(&out, "E imports shop::services::checkout -> shop::payments::paypal @ src/services/checkout.rs:4:22 syntactic 0.95");
    has(
        &out,
        "E imports checkout -> shop::services::checkout @ tests/checkout.rs:6:21 syntactic 0.95",
    );
    // The alias `PayPal` used as a type and a path.
    has(&out, "E references shop::services::checkout::compare -> shop::payments::paypal::Paypal @ src/services/checkout.rs:91:26 syntactic 0.95");

    // Trait structure.
    has(&out, "E implements shop::payments::stripe::Stripe -> shop::payments::gateway::Gateway @ src/payments/stripe.rs:17:6 syntactic 0.95");
    has(&out, "E implements shop::payments::paypal::Paypal::describe -> shop::payments::gateway::Gateway::describe syntactic 0.95");
    has(&out, "E extends shop::payments::gateway::Refundable -> shop::payments::gateway::Gateway @ src/payments/gateway.rs:40:23 syntactic 0.95");
    // Elements of slices, iterators (closure parameters), `for` loops,
    // indexing and map lookups keep their type.
    for site in ["46:55", "48:21", "53:23", "56:19", "56:44"] {
        has(&out, &format!("E calls shop::payments::gateway::total_paid -> shop::payments::gateway::Receipt::is_paid @ src/payments/gateway.rs:{site} inferred 0.8"));
    }

    // Enum variants are references to the enum.
    has(&out, "E references shop::payments::stripe::Stripe::charge -> shop::payments::gateway::Status @ src/payments/stripe.rs:26:25 syntactic 0.95");

    // Std methods never become edges to same-named in-repo methods:
    // `names.len()` on a Vec is not `Cart::len`, `user.is_empty()` on a
    // `&str` is not `Cart::is_empty`.
    lacks(&out, "@ src/services/checkout.rs:105:19");
    lacks(&out, "@ src/auth/mod.rs:9:11");
    lacks(&out, "U ");
    lacks(&out, "D ");
}

/// The global names of the Rust index are kept in the database: an update
/// interns only the names of the files it re-extracted, the others' ids
/// are read back. Whatever the kept table holds (names added by edits, ids
/// that do not fit a file, a chunk that does not decode, too many chunks),
/// the graph is the one a fresh index of the same tree gives.
#[test]
fn kept_rust_names_give_the_graph_of_a_fresh_index() {
    use refgraph::index::MAX_RUST_NAME_CHUNKS;

    let dir = crate::cli::copy_fixture("rust");
    let root = dir.path();
    let update = || update(root);
    let db = || rusqlite::Connection::open(root.join(".refgraph/graph.db")).unwrap();
    let count = |table: &str| -> i64 {
        db().query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    let fresh_graph = || fresh_graph(root);
    let stripe = std::fs::read_to_string(root.join("src/payments/stripe.rs")).unwrap();
    let checkout = std::fs::read_to_string(root.join("src/services/checkout.rs")).unwrap();

    update();
    let rust_files: i64 = db()
        .query_row("SELECT COUNT(*) FROM files WHERE lang = 'rust'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(rust_files > 5, "{rust_files}");
    assert_eq!((count("rust_names"), count("rust_gnames")), (1, rust_files));

    // A new fn in one file, called from another: its name is new to the
    // table (a second chunk), the two files' ids are interned again.
    crate::cli::write(
        root,
        "src/payments/stripe.rs",
        &format!("{stripe}\npub fn settle_stripe_batch() -> u64 {{ 1 }}\n"),
    );
    crate::cli::write(
        root,
        "src/services/checkout.rs",
        &format!(
            "{checkout}\npub fn settle() -> u64 {{ crate::payments::stripe::settle_stripe_batch() }}\n"
        ),
    );
    let r = update();
    assert_eq!(r.extracted, 2, "{r:?}");
    assert_eq!((count("rust_names"), count("rust_gnames")), (2, rust_files));
    let graph = crate::cli::graph_lines(root);
    assert_settles(&graph);
    assert_eq!(graph, fresh_graph());

    // Ids that do not fit a file's facts (none for its names), and then a
    // chunk that does not decode: interned again, the graph unchanged.
    db().execute(
        "UPDATE rust_gnames SET ids = x'0000' WHERE file_id =
         (SELECT id FROM files WHERE path = 'src/lib.rs')",
        [],
    )
    .unwrap();
    crate::cli::write(root, "src/services/checkout.rs", &checkout);
    update();
    assert_eq!(crate::cli::graph_lines(root), fresh_graph());
    db().execute("UPDATE rust_names SET names = x'ff' WHERE chunk = 0", [])
        .unwrap();
    crate::cli::write(root, "src/payments/stripe.rs", &stripe);
    update();
    assert_eq!((count("rust_names"), count("rust_gnames")), (1, rust_files));
    assert_eq!(crate::cli::graph_lines(root), fresh_graph());

    // Each edit adds a name, and a chunk: the table is rebuilt into one
    // before it has more than its limit.
    let mut most = 0;
    for i in 0..MAX_RUST_NAME_CHUNKS + 2 {
        crate::cli::write(
            root,
            "src/payments/stripe.rs",
            &format!("{stripe}\npub fn added_{i}() {{}}\n"),
        );
        update();
        most = most.max(count("rust_names"));
    }
    assert!(count("rust_names") < MAX_RUST_NAME_CHUNKS as i64);
    assert_eq!(most, MAX_RUST_NAME_CHUNKS as i64);
    assert_eq!(crate::cli::graph_lines(root), fresh_graph());
}

/// An update of the tree at `root` (an index, the first time).
fn update(root: &Path) -> refgraph::index::IndexReport {
    use refgraph::index::{self, IndexConfig};
    let (mut store, _) = index::open(root).expect("open");
    index::update(root, &mut store, &IndexConfig::default()).expect("update")
}

/// The graph a fresh index of the files at `root` gives.
fn fresh_graph(root: &Path) -> std::collections::BTreeSet<String> {
    let fresh = tempfile::tempdir().unwrap();
    crate::cli::copy_dir(root, fresh.path());
    crate::cli::graph_lines(fresh.path())
}

/// `settle` in checkout.rs calls stripe.rs's `settle_stripe_batch`.
fn assert_settles(graph: &std::collections::BTreeSet<String>) {
    assert!(
        graph
            .iter()
            .any(|l| l.contains("settle -> ") && l.contains("settle_stripe_batch")),
        "{graph:#?}"
    );
}

/// Manual check on a real crate: `REFGRAPH_RUST_DIR=… cargo test --test it
/// rust_lang::real_crate -- --ignored --nocapture` prints counts and timing.
#[test]
#[ignore]
fn real_crate() {
    let Ok(dir) = std::env::var("REFGRAPH_RUST_DIR") else {
        eprintln!("REFGRAPH_RUST_DIR not set");
        return;
    };
    let t = std::time::Instant::now();
    let out = refgraph::index::render(Path::new(&dir));
    let elapsed = t.elapsed();
    let count = |p: &str| out.lines().filter(|l| l.starts_with(p)).count();
    eprintln!(
        "nodes {} edges {} unresolved {} diagnostics {} in {:?}",
        count("N "),
        count("E "),
        count("U "),
        count("D "),
        elapsed
    );
    if let Ok(dump) = std::env::var("REFGRAPH_DUMP") {
        std::fs::write(dump, &out).unwrap();
    }
}

/// The copy of every file's definitions and scope kept beside the database
/// (`.refgraph/scopes.bin`) stands for a file only as its row is now: a
/// record of an earlier version of the file is not used (the file's facts
/// come from the database), and a damaged or foreign copy is replaced. The
/// graph is always the one a fresh index of the same tree gives.
#[test]
fn the_copy_of_the_facts_stands_only_for_the_rows_it_was_written_for() {
    let dir = crate::cli::copy_fixture("rust");
    let root = dir.path();
    // Every file written an hour ago, and each edited file too (its size
    // changed): an update takes only the edited file for changed. (Files
    // written within the file system's timestamp granularity of the last
    // update are all read again, and their facts with them, so the copy
    // would not be read for them.)
    let write = |rel: &str, text: &str| {
        crate::cli::write(root, rel, text);
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(root.join(rel))
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    };
    crate::cli::age(root);
    let update = || update(root);
    let copy = root.join(".refgraph/scopes.bin");
    let fresh_graph = || fresh_graph(root);
    let stripe = std::fs::read_to_string(root.join("src/payments/stripe.rs")).unwrap();
    let checkout = std::fs::read_to_string(root.join("src/services/checkout.rs")).unwrap();

    update();
    let first = std::fs::read(&copy).expect("a first index writes the copy");
    assert!(first.starts_with(b"RGSCOPE1"), "{:?}", &first[..8]);

    // A new fn in stripe.rs: its record is appended...
    write(
        "src/payments/stripe.rs",
        &format!("{stripe}\npub fn settle_stripe_batch() -> u64 {{ 1 }}\n"),
    );
    assert_eq!(update().extracted, 1);
    assert!(std::fs::read(&copy).unwrap().len() > first.len());
    // ...and lost (as if the append had failed): the copy's last record
    // of stripe.rs is its first version, which does not define the fn.
    std::fs::write(&copy, &first).unwrap();
    // checkout.rs now calls the fn: resolving it reads stripe.rs as the
    // database has it, not as the copy does.
    write(
        "src/services/checkout.rs",
        &format!(
            "{checkout}\npub fn settle() -> u64 {{ crate::payments::stripe::settle_stripe_batch() }}\n"
        ),
    );
    assert_eq!(update().extracted, 1);
    let graph = crate::cli::graph_lines(root);
    assert_settles(&graph);
    assert_eq!(graph, fresh_graph());

    // A damaged copy: not read, written again whole by the next update.
    std::fs::write(&copy, b"RGSCOPE1 damaged").unwrap();
    write("src/services/checkout.rs", &checkout);
    update();
    assert_eq!(crate::cli::graph_lines(root), fresh_graph());
    let rewritten = std::fs::read(&copy).unwrap();
    assert!(
        rewritten.starts_with(b"RGSCOPE1") && rewritten.len() > first.len() / 2,
        "{} bytes",
        rewritten.len()
    );

    // No copy at all: the facts come from the database, the copy is
    // written again.
    std::fs::remove_file(&copy).unwrap();
    write("src/payments/stripe.rs", &stripe);
    update();
    assert_eq!(crate::cli::graph_lines(root), fresh_graph());
    assert!(copy.exists());
}
