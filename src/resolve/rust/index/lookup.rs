//! Name lookup over the tables: modules, `use`s, globs, paths, types.

use std::hash::BuildHasher;

use super::*;
use crate::resolve::rust::sites::is_fn;

/// The global name ids of a world: each distinct name once, end to end in
/// one string, found by its hash. A Rust update interns every file's names
/// (rust-vendor: 313k, 134k distinct): a map of owned strings allocated
/// each and hashed them all again each time it grew.
#[derive(Default)]
pub struct NameTable {
    text: Names,
    /// (id, low half of the hash) of each name: 8 bytes an entry keeps the
    /// table of a large tree in cache; growing it hashes the names again.
    table: hashbrown::HashTable<(u32, u32)>,
    hasher: foldhash::fast::RandomState,
}

impl NameTable {
    pub fn with_capacity(n: usize) -> NameTable {
        NameTable {
            text: Names::default(),
            table: hashbrown::HashTable::with_capacity(n),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// A table of the names `text` holds, their ids their indexes (a table
    /// an earlier build kept): each is hashed once, none compared.
    pub fn from_names(text: Names) -> NameTable {
        let hasher = foldhash::fast::RandomState::default();
        let mut table = hashbrown::HashTable::with_capacity(text.len() + text.len() / 8);
        for (i, s) in text.iter().enumerate() {
            let h = hasher.hash_one(s);
            table.insert_unique(h, (i as u32, h as u32), |&(j, _)| {
                hasher.hash_one(&text[j as usize])
            });
        }
        NameTable {
            text,
            table,
            hasher,
        }
    }

    /// Every name, in id order.
    pub fn names(&self) -> &Names {
        &self.text
    }

    pub fn hash(&self, s: &str) -> u64 {
        self.hasher.hash_one(s)
    }

    pub fn get(&self, s: &str) -> Option<u32> {
        let h = self.hash(s);
        self.table
            .find(h, |&(i, lo)| lo == h as u32 && &self.text[i as usize] == s)
            .map(|&(i, _)| i)
    }

    /// The id of `s`, whose [`hash`](Self::hash) is `h`, added if new.
    pub fn intern_hashed(&mut self, s: &str, h: u64) -> u32 {
        let NameTable {
            text,
            table,
            hasher,
        } = self;
        let entry = table.entry(
            h,
            |&(i, lo)| lo == h as u32 && &text[i as usize] == s,
            |&(i, _)| hasher.hash_one(&text[i as usize]),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(o) => o.get().0,
            hashbrown::hash_table::Entry::Vacant(v) => {
                let i = text.len() as u32;
                v.insert((i, h as u32));
                text.push(s);
                i
            }
        }
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl Index {
    pub(super) fn intern(&mut self, s: &str) -> u32 {
        let h = self.names.hash(s);
        self.names.intern_hashed(s, h)
    }

    pub fn gname(&self, s: &str) -> Option<u32> {
        self.names.get(s)
    }

    /// The global name id of a definition's name: the one tabled for it
    /// (its file's definitions are not decoded for it), else that of its
    /// name.
    pub fn def_gname(&self, world: &World, sym: SymId) -> Option<u32> {
        match self.tabled_name(sym) {
            Some(n) => Some(n),
            None => self.gname(&world.def(sym).name),
        }
    }

    fn tabled_name(&self, sym: SymId) -> Option<u32> {
        let names = self.def_names.get(sym.file.0 as usize)?;
        names.get(sym.def as usize).copied()
    }

    /// Whether a definition's name is written as a type's (see
    /// [`crate::extract::rust::type_like`]).
    fn def_type_like(&self, world: &World, sym: SymId) -> bool {
        match self.tabled_name(sym) {
            Some(n) => crate::extract::rust::type_like(&self.names.names()[n as usize]),
            None => crate::extract::rust::type_like(&world.def(sym).name),
        }
    }

    /// Whether some Rust definition other than a file's module is named
    /// `s` (as `World::named(s, Family::Rust)` is not empty).
    pub fn def_named(&self, s: &str) -> bool {
        self.gname(s)
            .is_some_and(|i| self.def_named.get(i as usize).copied().unwrap_or(false))
    }

    /// Whether code in file `from` may reach what file `to` defines: they
    /// are of one package, or `to`'s package is among `from`'s
    /// dependencies (transitively). Files no manifest owns reach all.
    pub fn may_depend(&self, from: FileIdx, to: FileIdx) -> bool {
        let (a, b) = (self.file_pkg[from.0 as usize], self.file_pkg[to.0 as usize]);
        a == NONE || b == NONE || a == b || self.pkg_reach[a as usize].contains(&b)
    }

    /// Whether module `m` is `anc` or inside it.
    pub fn within(&self, mut m: u32, anc: u32) -> bool {
        for _ in 0..64 {
            if m == anc {
                return true;
            }
            match self.parent(m) {
                Some(p) => m = p,
                None => return false,
            }
        }
        false
    }

    /// Whether module `m` is in the crate of root `root`, through its
    /// parent or any other module declaring it (a test's `mod support;`
    /// shared by every test crate).
    pub fn in_crate(&self, m: u32, root: u32) -> bool {
        if self.mods[m as usize].root == root {
            return true;
        }
        if self.other_parents.is_empty() {
            return false;
        }
        let mut todo = vec![m];
        let mut seen: HashSet<u32> = HashSet::default();
        while let Some(m) = todo.pop() {
            if m == root {
                return true;
            }
            if seen.len() > 256 || !seen.insert(m) {
                continue;
            }
            todo.extend(self.parent(m));
            todo.extend(self.other_parents.get(&m).into_iter().flatten());
        }
        false
    }

    pub fn parent(&self, m: u32) -> Option<u32> {
        let p = self.mods[m as usize].parent;
        (p != NONE).then_some(p)
    }

    /// A name in a module: its items, child modules, `use` bindings, then
    /// what its glob imports bring (searched once per module). The flag says
    /// the name came through a `use`.
    pub fn lookup(
        &self,
        world: &World,
        m: u32,
        name: u32,
        ns: Ns,
        depth: u32,
        exclude: Option<UseRef>,
    ) -> Option<(Res, Via)> {
        if depth > MAX_DEPTH {
            TRUNCATED.with(|t| t.set(true));
            return None;
        }
        if let Some(r) = self.lookup_explicit(world, m, name, ns, depth, exclude, false) {
            return Some(r);
        }
        // A module whose file is not in the graph (ash's 2 MB
        // `vk/definitions.rs`, over the size limit) is not found, and no
        // glob can bring its name (rustc takes the module): each search
        // of ash's globs for it walked the globs of `vk` and its children.
        if matches!(ns, Ns::Any | Ns::Type) && self.unfiled.contains(&(m, name)) {
            return None;
        }
        let found = self
            .lookup_globs(world, m, name, ns, depth, exclude)
            .or_else(|| self.glob_variant(world, m, name, depth, exclude));
        // `#[cfg(x)] use a::f; use b::*;`: a use likely compiled out binds
        // the name only when nothing else does.
        found.or_else(|| self.lookup_explicit(world, m, name, ns, depth, exclude, true))
    }

    /// A variant a glob import of an enum in module `m` brings (`use
    /// Kind::*`): no node, outside the graph as an outside name is.
    pub fn glob_variant(
        &self,
        world: &World,
        m: u32,
        name: u32,
        depth: u32,
        exclude: Option<UseRef>,
    ) -> Option<(Res, Via)> {
        // (Resolving a module's globs again for every name it does not
        // have tripled rust-vendor's resolution time: only variant names
        // are worth it.)
        if !self.variant_names.contains(&name) {
            return None;
        }
        let globs = self.globs.get(&m)?;
        globs
            .iter()
            .filter(|&&u| Some(u) != exclude)
            .find_map(|&u| match self.resolve_use(world, u, Ns::Any, depth + 1)? {
                (Res::Def(e), _) if self.variants.contains(&(e, name)) => {
                    Some((Res::Ext, Via::Use))
                }
                _ => None,
            })
    }

    /// A name in what the glob imports of module `m` bring.
    fn lookup_globs(
        &self,
        world: &World,
        m: u32,
        name: u32,
        ns: Ns,
        depth: u32,
        exclude: Option<UseRef>,
    ) -> Option<(Res, Via)> {
        let search = |reach: &[u32]| {
            reach.iter().find_map(|&t| {
                let (r, via) =
                    self.lookup_explicit(world, t, name, ns, depth + 1, exclude, false)?;
                // A glob bringing the target's own item is as good as
                // naming it; one bringing what the target imported is a
                // re-export.
                let via = if via == Via::Item {
                    Via::Use
                } else {
                    Via::ReExport
                };
                Some((r, via))
            })
        };
        // The first segment of a `use` path may come from a glob of the
        // same module, but following globs whose own path starts with a
        // plain name would make the globs of a module resolve each other:
        // only `crate::`/`self::`/`super::` globs and globs of a child
        // module (`mod array; use array::*;`) are followed then.
        let rooted_only = exclude.is_some();
        // What the globs reach is the same for every name: made once a
        // module. (Walked again for each name, it was most of a Rust
        // update's time on bevy, whose preludes glob each other's.) A glob
        // being resolved is not followed from its own module, so where that
        // module is reached the walk is made anew.
        let own = exclude
            .filter(|&u| self.is_glob(world, u))
            .and_then(|u| self.use_module(world, u));
        let unaffected = |reach: &[u32]| own.is_none_or(|o| o != m && !reach.contains(&o));
        let memo = self
            .glob_memo
            .get(m as usize)
            .map(|p| &p[rooted_only as usize]);
        if let Some(reach) = memo.and_then(OnceLock::get).filter(|r| unaffected(r)) {
            return search(reach);
        }
        // Kept only when no lookup on the way was cut off at the depth
        // limit or at a `use` in progress (as `use` memos are): then it is
        // the same from any depth.
        let height = RESOLVING.with(|r| r.borrow().len());
        let (reach, clean) = tracked(height, || {
            self.glob_reach(world, m, depth, exclude, rooted_only)
        });
        match memo {
            Some(memo) if clean && unaffected(&reach) => search(memo.get_or_init(|| reach.into())),
            _ => search(&reach),
        }
    }

    /// The module `use` `u` is in.
    fn use_module(&self, world: &World, u: UseRef) -> Option<u32> {
        let us = scope_of(world, u.0)?.uses.get(u.1 as usize)?;
        Some(self.file_mod[u.0 .0 as usize] + us.module)
    }

    /// Whether `use` `u` is a glob import.
    fn is_glob(&self, world: &World, u: UseRef) -> bool {
        scope_of(world, u.0).is_some_and(|s| s.uses[u.1 as usize].glob)
    }

    /// The modules the glob imports of module `m` reach, depth first with
    /// the first glob first, each once and at most [`MAX_GLOB_MODULES`];
    /// `exclude`: a glob not followed; `rooted_only`: only globs of
    /// `crate::`/`self::`/`super::` paths and of child modules are followed.
    fn glob_reach(
        &self,
        world: &World,
        m: u32,
        depth: u32,
        exclude: Option<UseRef>,
        rooted_only: bool,
    ) -> Vec<u32> {
        let mut visited = vec![m];
        let mut stack = Vec::new();
        self.push_glob_targets(world, m, depth, exclude, rooted_only, &mut stack);
        while let Some(t) = stack.pop() {
            if visited.contains(&t) || visited.len() > MAX_GLOB_MODULES {
                continue;
            }
            visited.push(t);
            self.push_glob_targets(world, t, depth + 1, exclude, rooted_only, &mut stack);
        }
        visited.remove(0);
        visited
    }

    /// The type of the value or type of a path whose walk from module `m`
    /// ended outside the graph (`name`: its first segment, of `len`):
    /// outside, unless bound nowhere and possibly an in-repo item a macro
    /// defines (see [`Self::unbound_is_unknown`]).
    pub fn outside_ty(&self, world: &World, m: u32, w: &PathWalk, name: &str, len: usize) -> TyRes {
        if w.unbound && self.unbound_is_unknown(world, m, name, len) {
            TyRes::Unknown
        } else {
            TyRes::External
        }
    }

    /// Whether plain name `name`, the first of `len` segments of a path
    /// and bound nowhere in module `m`, may be an in-repo item a macro
    /// defines: not a crate (`std::…`, a dependency's `serde::…`), not a
    /// prelude or well-known std name, and no glob of `m` (or of the
    /// in-repo modules its globs reach) brings names from outside.
    fn unbound_is_unknown(&self, world: &World, m: u32, name: &str, len: usize) -> bool {
        if (len > 1 && !name.starts_with(|c: char| c.is_ascii_uppercase()))
            || PRELUDE.contains(&name)
            || DEREF_WRAPPERS.contains(&name)
            || WRAPPERS.contains(&name)
            || CONTAINERS.contains(&name)
            || MAPS.contains(&name)
        {
            return false;
        }
        let mut visited = Vec::new();
        let mut stack = vec![m];
        while let Some(t) = stack.pop() {
            if visited.contains(&t) || visited.len() > MAX_GLOB_MODULES {
                continue;
            }
            visited.push(t);
            for &u in self.globs.get(&t).into_iter().flatten() {
                match self.resolve_use(world, u, Ns::Any, 1) {
                    Some((Res::Mod(next), _)) => stack.push(next),
                    // `use Kind::*` of an in-repo enum: its variants.
                    Some((Res::Def(_), _)) => {}
                    _ => return false,
                }
            }
        }
        true
    }

    /// Whether item `d` is in scope in module `m` under another name than
    /// its own: through a renamed `use` (`use io::Write as _`,
    /// tracing-subscriber's prelude's `SubscriberExt as
    /// __tracing_subscriber_SubscriberExt`) of `m`, or of a module `m`'s
    /// globs bring (up to [`MAX_DEPTH`] globs away).
    pub fn renamed_in(&self, world: &World, m: u32, d: SymId) -> bool {
        let Some(memo) = self.renamed_memo.get(m as usize) else {
            return false;
        };
        memo.get_or_init(|| self.renamed_defs(world, m))
            .binary_search(&d)
            .is_ok()
    }

    /// What [`Self::renamed_in`] looks in: the modules `m`'s globs reach,
    /// breadth first, each once. (Following every path through bevy's
    /// preludes, which glob each other's, made a cold index of bevy and
    /// tokio take a quarter of an hour.)
    fn renamed_defs(&self, world: &World, m: u32) -> Box<[SymId]> {
        let mut defs = Vec::new();
        let mut seen = HashSet::default();
        seen.insert(m);
        let mut level = vec![m];
        let mut next = Vec::new();
        for depth in 0..=MAX_DEPTH {
            for &t in &level {
                for &u in self.renamed.get(&t).into_iter().flatten() {
                    if let Some((Res::Def(x), _)) = self.resolve_use(world, u, Ns::Any, depth + 1) {
                        defs.push(x);
                    }
                }
                self.push_glob_targets(world, t, depth, None, false, &mut next);
            }
            level.clear();
            level.extend(next.drain(..).filter(|&t| seen.insert(t)));
            if level.is_empty() {
                break;
            }
        }
        defs.sort_unstable();
        defs.dedup();
        defs.into()
    }

    pub(super) fn push_glob_targets(
        &self,
        world: &World,
        m: u32,
        depth: u32,
        exclude: Option<UseRef>,
        rooted_only: bool,
        out: &mut Vec<u32>,
    ) {
        let Some(globs) = self.globs.get(&m) else {
            return;
        };
        let followed = |u: UseRef| {
            Some(u) != exclude
                && (!rooted_only || self.keyword_rooted(world, u) || self.child_rooted(world, u, m))
        };
        // A glob likely compiled out yields to a live one from outside
        // (tracing-core's `#[cfg(feature = "std")] use std::*;` beside
        // `#[cfg(not(feature = "std"))] use self::no_std::*;`): what the
        // name is cannot be told, but it is not the compiled-out one's.
        // Beside a live in-repo glob, it is searched still: a dependent
        // may turn its feature on (tokio, mio's `os-poll`). (Asked only
        // where some glob is off: most modules have none.)
        let skip_off = globs.iter().any(|&u| self.use_off(world, u))
            && globs.iter().any(|&u| {
                !self.use_off(world, u)
                    && if followed(u) {
                        !matches!(
                            self.resolve_use(world, u, Ns::Any, depth + 1),
                            Some((Res::Mod(_) | Res::Def(_), _))
                        )
                    } else {
                        // (While a `use` is resolved, a glob of a plain
                        // path is not followed: one of std's is outside
                        // all the same.)
                        Some(u) != exclude && self.std_rooted(world, u)
                    }
            });
        // Reversed so the first glob is searched first.
        for &u in globs.iter().rev() {
            if !followed(u) || (skip_off && self.use_off(world, u)) {
                continue;
            }
            if let Some((Res::Mod(t), _)) = self.resolve_use(world, u, Ns::Any, depth + 1) {
                out.push(t);
            }
        }
    }

    /// Whether `use` `u` starts at `std`, `core` or `alloc`.
    fn std_rooted(&self, world: &World, u: UseRef) -> bool {
        let Some(s) = scope_of(world, u.0) else {
            return false;
        };
        s.uses
            .get(u.1 as usize)
            .and_then(|us| us.segs.first())
            .is_some_and(|&n| matches!(&s.names[n as usize], "std" | "core" | "alloc"))
    }

    pub(super) fn keyword_rooted(&self, world: &World, u: UseRef) -> bool {
        let Some(us) = scope_of(world, u.0).and_then(|s| s.uses.get(u.1 as usize)) else {
            return false;
        };
        us.segs.first().is_some_and(|&n| {
            let g = self.gnames[u.0 .0 as usize][n as usize];
            g == self.kw_crate || g == self.kw_self || g == self.kw_super || g == self.kw_global
        })
    }

    /// Whether `use` `u` of module `m` starts at a child module of `m`,
    /// which no `use` or glob can shadow (a name bound twice is an error).
    fn child_rooted(&self, world: &World, u: UseRef, m: u32) -> bool {
        let Some(us) = scope_of(world, u.0).and_then(|s| s.uses.get(u.1 as usize)) else {
            return false;
        };
        us.segs.first().is_some_and(|&n| {
            let g = self.gnames[u.0 .0 as usize][n as usize];
            self.children.contains_key(&(m, g))
        })
    }

    /// Whether module-level `use` `u` is likely compiled out.
    pub fn use_off(&self, world: &World, u: UseRef) -> bool {
        self.off_uses.contains(&u)
            || scope_of(world, u.0).is_some_and(|s| s.uses[u.1 as usize].cfg_off)
    }

    /// A name among module `m`'s items, child modules and `use` bindings;
    /// `off_uses`: among its uses likely compiled out, and only those.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lookup_explicit(
        &self,
        world: &World,
        m: u32,
        name: u32,
        ns: Ns,
        depth: u32,
        exclude: Option<UseRef>,
        off_uses: bool,
    ) -> Option<(Res, Via)> {
        let use_off = |u: UseRef| self.use_off(world, u);
        if off_uses {
            let u = self
                .uses
                .get(&(m, name))
                .into_iter()
                .flatten()
                .copied()
                .filter(|&u| Some(u) != exclude && use_off(u));
            return u.into_iter().find_map(|u| {
                let (r, reexport) = self.resolve_use(world, u, ns, depth + 1)?;
                Some((r, if reexport { Via::ReExport } else { Via::Use }))
            });
        }
        let mut off_item = None;
        // `pub mod parse;` beside `pub fn parse()` (syn): a function is
        // not in the type namespace, so where a module of that name is
        // (a path's prefix, a type's path) the module is meant.
        let child = self.children.get(&(m, name)).copied();
        if let Some(items) = self.items.get(&(m, name)) {
            let found = items.iter().find(|(s, mac)| match ns {
                Ns::Macro => *mac,
                Ns::Any => !*mac && (child.is_none() || !is_fn(world.head(*s).kind)),
                Ns::Type => !*mac && !is_fn(world.head(*s).kind),
                Ns::Value => !*mac && self.is_value(world, *s),
            });
            if let Some((s, _)) = found {
                // An item likely compiled out (`#[cfg(all(not(feature =
                // "std"), no_core_error))] trait StdError`) yields to a
                // `use` of the same name (`use std::error::Error as
                // StdError` under the default features). So does a fn
                // named like a type where a type may be meant: a `use`
                // beside it brings the type (syn's `pub use
                // proc_macro2::Ident;` and `pub fn Ident(…)`). (A snake_case
                // one beside a `use` is a cfg'd alternative: clap's
                // `#[cfg(feature = "unicode")] use unicase::eq as
                // eq_ignore_case;`.)
                let fn_like =
                    ns == Ns::Any && is_fn(world.head(*s).kind) && self.def_type_like(world, *s);
                let yields = (fn_like || self.off.contains(s))
                    && self
                        .uses
                        .get(&(m, name))
                        .is_some_and(|us| us.iter().any(|&u| Some(u) != exclude));
                if !yields {
                    return Some((Res::Def(*s), Via::Item));
                }
                off_item = Some(*s);
            }
        }
        if let (Ns::Any | Ns::Type, Some(c)) = (ns, child) {
            return Some((Res::Mod(c), Via::Item));
        }
        for &u in self.uses.get(&(m, name)).into_iter().flatten() {
            if Some(u) == exclude || use_off(u) {
                continue;
            }
            if let Some((r, reexport)) = self.resolve_use(world, u, ns, depth + 1) {
                return Some((r, if reexport { Via::ReExport } else { Via::Use }));
            }
        }
        off_item.map(|s| (Res::Def(s), Via::Item))
    }

    /// Whether def `d` can be named as a value: anything but a module, a
    /// trait, an enum, a type alias or a struct with named fields.
    pub fn is_value(&self, world: &World, d: SymId) -> bool {
        world.head(d).kind != NodeKind::Class
            || !(self.braced(world, d)
                || self.traits.contains(&d)
                || self.enums.contains(&d)
                || self.aliases.contains_key(&d))
    }

    /// What a `use` binds; the flag says it went through another module's
    /// `use`. Module-level uses are memoized for the type/value namespace;
    /// the value namespace is looked up apart only when that finds no value.
    pub fn resolve_use(&self, world: &World, u: UseRef, ns: Ns, depth: u32) -> Option<(Res, bool)> {
        if ns == Ns::Type {
            // Mostly what the type/value namespace memo has; a fn bound
            // there is looked past.
            match self.resolve_use(world, u, Ns::Any, depth) {
                Some((Res::Def(d), _)) if is_fn(world.head(d).kind) => {}
                other => return other,
            }
        }
        if ns == Ns::Value {
            // (Outside in the type namespace, a value of the name may
            // still be in the repository: syn's `Ident`, see
            // `lookup_explicit`.)
            match self.resolve_use(world, u, Ns::Any, depth) {
                Some((Res::Mod(_) | Res::Ext, _)) => {}
                Some((Res::Def(d), _)) if !self.is_value(world, d) => {}
                other => return other,
            }
        }
        let scope = scope_of(world, u.0)?;
        let us = scope.uses.get(u.1 as usize)?;
        let memo = (ns == Ns::Any && us.scope_fn == 0)
            .then(|| {
                self.use_memo
                    .get((self.use_base[u.0 .0 as usize] + u.1) as usize)
            })
            .flatten();
        if let Some(v) = memo.and_then(|m| m.get()) {
            return *v;
        }
        // A `use` its own resolution reaches again binds nothing there (ash
        // has `use crate::vk::definitions::*` in modules `vk` globs, which
        // glob each other's): searching on to the depth limit, and so
        // memoizing nothing, made bevy and tokio's Rust update walk the
        // globs of a module 717k times.
        let key = (u, ns);
        let height = RESOLVING.with(|r| {
            let mut r = r.borrow_mut();
            match r.iter().position(|&k| k == key) {
                Some(i) => Err(i),
                None => {
                    r.push(key);
                    Ok(r.len() - 1)
                }
            }
        });
        let height = match height {
            Ok(h) => h,
            Err(i) => {
                CUT.with(|c| c.set(c.get().min(i)));
                return None;
            }
        };
        // Off the stack however the resolution ends (a panic in one file's
        // resolution is caught, and the thread goes on to the next).
        struct Pop;
        impl Drop for Pop {
            fn drop(&mut self) {
                RESOLVING.with(|r| r.borrow_mut().pop());
            }
        }
        let _pop = Pop;
        // What was found with this very `use` cut holds for it: only a cut
        // further out keeps it from the memo.
        let (v, clean) = tracked(height, || self.compute_use(world, u, ns, depth));
        if let (Some(m), true) = (memo, clean) {
            let _ = m.set(v);
        }
        v
    }

    pub(super) fn compute_use(
        &self,
        world: &World,
        u: UseRef,
        ns: Ns,
        depth: u32,
    ) -> Option<(Res, bool)> {
        let scope = scope_of(world, u.0)?;
        let us = scope.uses.get(u.1 as usize)?;
        let g = &self.gnames[u.0 .0 as usize];
        let segs: Vec<u32> = us.segs.iter().map(|&n| g[n as usize]).collect();
        let m = self.use_start(u.0, self.file_mod[u.0 .0 as usize] + us.module, &segs);
        let w = self.walk_from(world, u.0, m, &segs, ns, depth, Some(u), None);
        if w.external {
            return Some((Res::Ext, false));
        }
        if w.hits.len() != segs.len() {
            return None;
        }
        let (res, _) = *w.hits.last()?;
        let reexport = w
            .hits
            .iter()
            .any(|(_, h)| matches!(h, How::ReExport | How::Import));
        Some((res, reexport))
    }

    /// The module a `use` of module `m` in file `f` walks its path `segs`
    /// from: `m`, but for edition 2015, where a path starts at the crate's
    /// root (lewton's `use VorbisError;` in a module, `use imdct_test::*;`
    /// in a fn) unless it starts with `self`, `super`, `crate` or `::`.
    pub fn use_start(&self, f: FileIdx, m: u32, segs: &[u32]) -> u32 {
        let relative =
            |s: &u32| [self.kw_self, self.kw_super, self.kw_crate, self.kw_global].contains(s);
        let root = self.mods[m as usize].root;
        match segs.first() {
            Some(s) if self.edition_2015.contains(&f) && !relative(s) && root != NONE => root,
            _ => m,
        }
    }

    pub fn walk(&self, world: &World, f: FileIdx, m: u32, segs: &[u32], ns: Ns) -> PathWalk {
        self.walk_from(world, f, m, segs, ns, 0, None, None)
    }

    /// Resolve a path from module `m` of file `f`; `first` looks the first
    /// segment up in fn-local scopes before the module.
    #[allow(clippy::too_many_arguments)]
    pub fn walk_from(
        &self,
        world: &World,
        f: FileIdx,
        m: u32,
        segs: &[u32],
        ns: Ns,
        depth: u32,
        exclude: Option<UseRef>,
        first: Option<FirstLookup>,
    ) -> PathWalk {
        let mut out = PathWalk::default();
        let Some(&s0) = segs.first() else {
            return out;
        };
        let ns_at = |i: usize| if i + 1 == segs.len() { ns } else { Ns::Type };
        if s0 == self.kw_global && !self.edition_2015.contains(&f) {
            // `::name::…`: a crate of the workspace (the marker and its name
            // both stand for its root), or an external one.
            let Some(&c) = segs.get(1).and_then(|s1| self.crates.get(s1)) else {
                out.external = true;
                return out;
            };
            out.hits.push((Res::Mod(c), How::Path));
            out.hits.push((Res::Mod(c), How::Path));
        } else {
            // Edition 2015: `::name` is `crate::name`.
            let hit0 = if s0 == self.kw_crate || s0 == self.kw_global {
                Some((Res::Mod(self.mods[m as usize].root), How::Path))
            } else if s0 == self.kw_self {
                Some((Res::Mod(m), How::Path))
            } else if s0 == self.kw_super {
                self.parent(m).map(|p| (Res::Mod(p), How::Path))
            } else {
                // A path's first segment is in the type namespace: a fn named
                // like a crate (`fn indexmap()` beside `use indexmap::map::Entry`)
                // does not hide the crate.
                let prefix_ok = |h: &(Res, How)| {
                    segs.len() == 1 || !matches!(h.0, Res::Def(d) if is_fn(world.head(d).kind))
                };
                let local = first.and_then(|l| l(s0, ns_at(0))).filter(prefix_ok);
                // `extern crate x;` (and `use x;`) binds crate `x`, not what
                // else is named `x` in the module: cpal's `extern crate
                // wasm_bindgen;` beside `use self::wasm_bindgen::prelude::*`,
                // whose prelude brings the `wasm_bindgen` attribute macro.
                let extern_crate = || {
                    let single =
                        segs.len() == 1 && exclude.is_some_and(|u| !self.is_glob(world, u));
                    let root = self.crates.get(&s0).filter(|_| single);
                    root.map(|&c| (Res::Mod(c), How::Path))
                };
                local
                    .or_else(extern_crate)
                    .or_else(|| {
                        self.lookup(world, m, s0, ns_at(0), depth, exclude)
                            .map(|(r, via)| {
                                let how = match via {
                                    Via::Use => How::Import,
                                    Via::ReExport => How::ReExport,
                                    Via::Item if matches!(r, Res::Def(d) if d.file == f) => {
                                        How::Local
                                    }
                                    Via::Item => How::Path,
                                };
                                (r, how)
                            })
                            .filter(prefix_ok)
                    })
                    .or_else(|| self.crates.get(&s0).map(|&c| (Res::Mod(c), How::Path)))
            };
            let Some(hit0) = hit0.filter(|h| h.0 != Res::Ext) else {
                out.external = true;
                out.bound_outside = hit0.is_some();
                out.unbound = hit0.is_none();
                return out;
            };
            out.hits.push(hit0);
        }
        for (i, &s) in segs.iter().enumerate().skip(out.hits.len()) {
            let prev = out.hits[i - 1].0;
            let next = match prev {
                Res::Mod(pm) => {
                    if s == self.kw_super {
                        self.parent(pm).map(|p| (Res::Mod(p), How::Path))
                    } else if s == self.kw_self {
                        Some((Res::Mod(pm), How::Path))
                    } else {
                        self.lookup(world, pm, s, ns_at(i), depth + 1, exclude)
                            .map(|(r, via)| {
                                (
                                    r,
                                    if via == Via::Item {
                                        How::Path
                                    } else {
                                        How::ReExport
                                    },
                                )
                            })
                    }
                }
                Res::Def(t) => {
                    let found = self.assoc(world, self.unalias(world, t), s);
                    // Items likely compiled out (`#[cfg(windows)]` beside
                    // `#[cfg(unix)]`) are sorted last and do not count.
                    let k = found.iter().filter(|&&d| !self.is_off(d)).count();
                    found.first().map(|&d| {
                        let how = if k > 1 {
                            How::Candidates(k.min(u8::MAX as usize) as u8)
                        } else {
                            How::Path
                        };
                        (Res::Def(d), how)
                    })
                }
                Res::Ext => None,
            };
            if next.is_some_and(|h| h.0 == Res::Ext) {
                out.external = true;
                break;
            }
            match next {
                Some(h) => out.hits.push(h),
                None => break,
            }
        }
        // Edition 2015: the root holds the `std` the compiler injects and
        // the `extern crate`s, so a `::name` not found there is outside
        // (`::std::ops::Range`).
        if s0 == self.kw_global
            && out.hits.len() == 1
            && segs.get(1).is_some_and(|s1| !self.crates.contains_key(s1))
        {
            out.external = true;
        }
        out
    }

    /// Associated fns/methods named `name` of type or trait `t`: inherent
    /// impls first, then trait impls, then trait (default) methods. For a
    /// trait itself (a receiver typed `dyn Tr`, `impl Tr`, `T: Tr`, `self`
    /// in a default method), its own method comes before impls registered
    /// under it (`impl<I: Tr> Tr for Box<I>`).
    pub fn assoc(&self, world: &World, t: SymId, name: u32) -> Vec<SymId> {
        if let Some(v) = self.inherent.get(&(t, name)) {
            return v.to_vec();
        }
        // An inherent const is found before any trait's item of its name.
        if self.inherent_consts.contains(&(t, name)) {
            return Vec::new();
        }
        self.assoc_of_traits(world, t, name)
    }

    /// [`Index::assoc`] as seen from module `from`: an inherent method
    /// that is not `pub` is out of reach outside its impl's module (one
    /// `pub(super)` outside the parent of that module), and the call is a
    /// trait's (chrono's private `const fn year` beside `impl Datelike for
    /// NaiveDate`); when no trait has one either, the inherent methods
    /// after all.
    pub fn assoc_from(&self, world: &World, t: SymId, name: u32, from: u32) -> Vec<SymId> {
        let Some(v) = self.inherent.get(&(t, name)) else {
            return self.assoc_of_traits(world, t, name);
        };
        let reachable = |c: &SymId| {
            let Some(cm) = self.method_module(*c) else {
                return true;
            };
            if self.super_only.contains(c) {
                return self.within(from, self.parent(cm).unwrap_or(cm));
            }
            world.head(*c).exported || self.within(from, cm)
        };
        if v.iter().any(reachable) {
            return v.iter().copied().filter(reachable).collect();
        }
        let traits = self.assoc_of_traits(world, t, name);
        if traits.is_empty() {
            v.to_vec()
        } else {
            traits
        }
    }

    /// The trait methods `t.name()` reaches: its own if `t` is a trait, its
    /// trait impls', or a provided method of a trait it implements.
    fn assoc_of_traits(&self, world: &World, t: SymId, name: u32) -> Vec<SymId> {
        if self.traits.contains(&t) {
            if let Some(m) = self.trait_method(t, name, 0) {
                return vec![m];
            }
        }
        if let Some(v) = self.trait_impl_methods.get(&(t, name)) {
            return v.to_vec();
        }
        if let Some(m) = self.trait_method(t, name, 0) {
            return vec![m];
        }
        if let Some(trs) = self.type_traits.get(&t) {
            for &tr in trs {
                if let Some(m) = self.trait_method(tr, name, 0) {
                    return vec![m];
                }
            }
        }
        let _ = world;
        Vec::new()
    }

    /// A method of a trait with a blanket impl for the bound `t` has (it
    /// implements the bound trait), if exactly one has `name`.
    pub fn blanket_method(&self, t: SymId, name: u32) -> Option<SymId> {
        let mut found = None;
        let traits = self.type_traits.get(&t)?;
        for &(m, bound) in self.blanket_methods.get(&name)? {
            if !traits.contains(&bound) {
                continue;
            }
            if found.is_some_and(|f| f != m) {
                return None;
            }
            found = Some(m);
        }
        found
    }

    /// Whether trait `t` or one of its in-repo supertraits has a
    /// supertrait from outside the repository.
    pub fn has_ext_super(&self, t: SymId, depth: u32) -> bool {
        depth <= 8
            && (self.ext_supers.contains(&t)
                || self
                    .supers
                    .get(&t)
                    .is_some_and(|s| s.iter().any(|&s| self.has_ext_super(s, depth + 1))))
    }

    /// A method declared by trait `t` or one of its supertraits.
    pub fn trait_method(&self, t: SymId, name: u32, depth: u32) -> Option<SymId> {
        self.in_supers(&self.trait_methods, t, name, depth)
    }

    /// What `table` has for (trait `t`, `name`), or for the nearest of its
    /// supertraits that has something.
    fn in_supers<V: Copy>(
        &self,
        table: &HashMap<(SymId, u32), V>,
        t: SymId,
        name: u32,
        depth: u32,
    ) -> Option<V> {
        if depth > 8 {
            return None;
        }
        if let Some(&v) = table.get(&(t, name)) {
            return Some(v);
        }
        self.supers
            .get(&t)?
            .iter()
            .find_map(|&s| self.in_supers(table, s, name, depth + 1))
    }

    /// Resolve a type written in module `m` of file `f`.
    pub fn resolve_ty(&self, world: &World, f: FileIdx, m: u32, ty: &Ty) -> TyRes {
        self.resolve_ty_with(world, f, m, ty, None)
    }

    pub fn resolve_ty_with(
        &self,
        world: &World,
        f: FileIdx,
        m: u32,
        ty: &Ty,
        first: Option<FirstLookup>,
    ) -> TyRes {
        let depth = TY_DEPTH.with(|d| d.get());
        if depth > 24 {
            return TyRes::Unknown;
        }
        TY_DEPTH.with(|d| d.set(depth + 1));
        let r = self.resolve_ty_inner(world, f, m, ty, first);
        TY_DEPTH.with(|d| d.set(depth));
        r
    }

    fn resolve_ty_inner(
        &self,
        world: &World,
        f: FileIdx,
        m: u32,
        ty: &Ty,
        first: Option<FirstLookup>,
    ) -> TyRes {
        match ty {
            // (A type parameter is known only with the impl around a use:
            // see `field_ty_with`.)
            Ty::Unknown | Ty::Param(_) => TyRes::Unknown,
            Ty::Fn(_) => TyRes::Fn,
            Ty::BoundParam(_, bound) => self.path_ty(world, f, m, bound, first),
            Ty::ImplAssoc(path) => self
                .projection_bound(world, f, m, path, first)
                .map_or(TyRes::Unknown, TyRes::Impls),
            Ty::External => TyRes::External,
            Ty::Slice(elem) => {
                TyRes::Container(Box::new(self.resolve_ty_with(world, f, m, elem, first)))
            }
            Ty::Tuple(elems) => TyRes::Tuple(
                elems
                    .iter()
                    .map(|e| self.resolve_ty_with(world, f, m, e, first))
                    .collect(),
            ),
            Ty::Generic(p, args) => self.generic_ty(world, f, m, p, first, &|i| {
                args.get(i)
                    .map(|a| self.resolve_ty_with(world, f, m, a, first))
            }),
            Ty::Path(p) => match self.path_ty(world, f, m, p, first) {
                TyRes::Def(d) if self.aliases.contains_key(&d) => {
                    self.alias_target(world, d, 0).unwrap_or(TyRes::Def(d))
                }
                // A generic bound by `FnMut(…)` alone, which the extractor
                // writes as its bound's path.
                TyRes::External
                    if p.last().is_some_and(|&l| {
                        scope_of(world, f).is_some_and(|s| fn_trait(&s.names[l as usize]))
                    }) =>
                {
                    TyRes::Fn
                }
                other => other,
            },
        }
    }

    /// `P<…>` written in module `m` of file `f`, with its resolved type
    /// arguments given by `arg` (`None` past the last one).
    fn generic_ty(
        &self,
        world: &World,
        f: FileIdx,
        m: u32,
        p: &[u32],
        first: Option<FirstLookup>,
        given: &dyn Fn(usize) -> Option<TyRes>,
    ) -> TyRes {
        let arg = |i: usize| Box::new(given(i).unwrap_or(TyRes::Unknown));
        match self.path_ty(world, f, m, p, first) {
            TyRes::External => {
                let last = p
                    .last()
                    .and_then(|&l| scope_of(world, f).map(|s| &s.names[l as usize]))
                    .unwrap_or("");
                if DEREF_WRAPPERS.contains(&last) {
                    *arg(0)
                } else if WRAPPERS.contains(&last) {
                    TyRes::Wrap(arg(0))
                } else if CONTAINERS.contains(&last) || ITERATORS.contains(&last) {
                    TyRes::Container(arg(0))
                } else if MAPS.contains(&last) {
                    TyRes::Map(arg(0), arg(1))
                } else {
                    TyRes::External
                }
            }
            // `type Result<T> = std::result::Result<T, Error>`: the
            // use site's arguments fill the alias's shape.
            TyRes::Def(d) if self.aliases.contains_key(&d) => {
                match self.alias_target(world, d, 0) {
                    Some(TyRes::Def(t)) => TyRes::Def(t),
                    Some(TyRes::Wrap(_)) => TyRes::Wrap(arg(0)),
                    Some(TyRes::Container(_)) => TyRes::Container(arg(0)),
                    Some(TyRes::Map(k, _)) => match given(1) {
                        None => TyRes::Map(k, arg(0)),
                        Some(v) => TyRes::Map(arg(0), Box::new(v)),
                    },
                    Some(other) => other,
                    None => TyRes::Def(d),
                }
            }
            other => other,
        }
    }

    /// The type a path names, aliases not followed.
    pub fn path_ty(
        &self,
        world: &World,
        f: FileIdx,
        m: u32,
        p: &[u32],
        first: Option<FirstLookup>,
    ) -> TyRes {
        let g = &self.gnames[f.0 as usize];
        let segs: Vec<u32> = p.iter().map(|&n| g[n as usize]).collect();
        let w = self.walk_from(world, f, m, &segs, Ns::Any, 0, None, first);
        let name = |l: u32| scope_of(world, f).map(|s| &s.names[l as usize]);
        if w.external {
            // A type bound nowhere (`bitflags! { struct Flags … }`) may be
            // an in-repo type a macro defines: unknown, not outside.
            let name0 = p.first().and_then(|&n| name(n)).unwrap_or("");
            return self.outside_ty(world, m, &w, name0, p.len());
        }
        let last = p.last().and_then(|&l| name(l));
        match self.value_ty(world, &w, segs.len(), last.unwrap_or(""), false) {
            TyRes::Def(d) if world.head(d).kind == NodeKind::Class => TyRes::Def(d),
            _ => TyRes::Unknown,
        }
    }

    /// The type of the value a walked path names: a type (unit struct,
    /// struct literal), a fn's return type (when `call`), or for
    /// `Enum::Variant` (the last segment not found, CamelCase) the enum.
    pub fn value_ty(
        &self,
        world: &World,
        w: &PathWalk,
        len: usize,
        last: &str,
        call: bool,
    ) -> TyRes {
        if w.hits.len() + 1 == len && crate::extract::rust::type_like(last) {
            return match w.last_def() {
                // `TimeZone::Offset`: the trait's associated type, a value
                // of some type with the trait it is bound by.
                Some(d) if self.traits.contains(&d) => self.trait_assoc_ty(world, d, last),
                Some(d) if world.head(d).kind == NodeKind::Class => TyRes::Def(d),
                _ => TyRes::Unknown,
            };
        }
        if w.hits.len() != len {
            return TyRes::Unknown;
        }
        match w.last_def() {
            Some(d) if world.head(d).kind == NodeKind::Class => TyRes::Def(d),
            Some(d) if call && world.head(d).kind != NodeKind::Module => self.ret_ty(world, d),
            _ => TyRes::Unknown,
        }
    }

    /// The in-repo trait bounding associated type `name` of trait `tr`.
    fn trait_assoc_ty(&self, world: &World, tr: SymId, name: &str) -> TyRes {
        let Some((f, i)) = self.gname(name).and_then(|g| self.assoc_ty_decl(tr, g)) else {
            return TyRes::Unknown;
        };
        let Some(a) = scope_of(world, f).and_then(|s| s.trait_assoc_tys.get(i as usize)) else {
            return TyRes::Unknown;
        };
        match self.declared_ty(world, f, a) {
            TyRes::Def(b) if self.traits.contains(&b) => TyRes::Def(b),
            _ => TyRes::Unknown,
        }
    }

    /// The in-repo trait bounding `Tr::Name` (path `p`, written in module
    /// `m` of file `f`), when `Tr` is an in-repo trait.
    fn projection_bound(
        &self,
        world: &World,
        f: FileIdx,
        m: u32,
        p: &[u32],
        first: Option<FirstLookup>,
    ) -> Option<SymId> {
        let (&last, tr) = p.split_last()?;
        let tr = match self.path_ty(world, f, m, tr, first) {
            TyRes::Def(t) if self.traits.contains(&t) => t,
            _ => return None,
        };
        let name = scope_of(world, f).map_or("", |s| &s.names[last as usize]);
        match self.trait_assoc_ty(world, tr, name) {
            TyRes::Def(b) => Some(b),
            _ => None,
        }
    }

    /// Where bounded associated type `g` (a global name id) of trait `tr`
    /// is declared: in `tr` or a supertrait (`Self::Reducer` in
    /// `UnindexedConsumer: Consumer`, which declares `type Reducer:
    /// Reducer<…>`).
    fn assoc_ty_decl(&self, tr: SymId, g: u32) -> Option<(FileIdx, u32)> {
        self.in_supers(&self.trait_assoc_tys, tr, g, 0)
    }

    /// Whether trait `t` is trait `b` or has it among its supertraits.
    fn extends(&self, t: SymId, b: SymId, depth: u32) -> bool {
        t == b
            || (depth <= 8
                && self
                    .supers
                    .get(&t)
                    .is_some_and(|s| s.iter().any(|&s| self.extends(s, b, depth + 1))))
    }

    /// What type alias `t` stands for (`t` itself if not an alias or not
    /// an in-repo type).
    pub fn unalias(&self, world: &World, t: SymId) -> SymId {
        match self.alias_target(world, t, 0) {
            Some(TyRes::Def(d)) => d,
            _ => t,
        }
    }

    pub(super) fn alias_target(&self, world: &World, t: SymId, depth: u32) -> Option<TyRes> {
        let &(f, i) = self.aliases.get(&t)?;
        if depth > 4 {
            return None;
        }
        let scope = scope_of(world, f)?;
        let m = self.def_module(t).unwrap_or(self.file_mod[f.0 as usize]);
        Some(
            match self.resolve_ty(world, f, m, &scope.aliases[i as usize].ty) {
                TyRes::Def(d) if self.aliases.contains_key(&d) => self
                    .alias_target(world, d, depth + 1)
                    .unwrap_or(TyRes::Def(d)),
                other => other,
            },
        )
    }

    /// The declared type of field `name` of struct `t`; a field typed by
    /// the struct's own type parameter is unknown (see [`Ty::Param`]).
    pub fn field_ty(&self, world: &World, t: SymId, name: u32) -> TyRes {
        self.field_ty_with(world, t, name, None)
    }

    /// [`Self::field_ty`], with what the struct's type parameter `i` is
    /// where the field is read (`param(i)`: `self.inner` in `impl<T: Buf>
    /// Buf for Take<T>`).
    pub fn field_ty_with(
        &self,
        world: &World,
        t: SymId,
        name: u32,
        param: Option<&dyn Fn(usize) -> TyRes>,
    ) -> TyRes {
        let Some((f, i)) = self.field(world, t, name) else {
            return TyRes::Unknown;
        };
        let Some(scope) = scope_of(world, f) else {
            return TyRes::Unknown;
        };
        let m = self.def_module(t).unwrap_or(self.file_mod[f.0 as usize]);
        let ty = &scope.fields.get()[i as usize].ty;
        match (ty, param) {
            (Ty::Param(p), Some(param)) => param(*p as usize),
            // The impl's bound when it is the struct's or a subtrait of
            // it (rayon's `IndexedParallelIterator: ParallelIterator`);
            // another bound of several is no more than the struct's
            // (petgraph's `Dot<G: IntoEdgeReferences + …>` in `impl<G:
            // IntoNodeReferences + IntoEdgeReferences + …>`).
            (Ty::BoundParam(p, _), Some(param)) => {
                let bound = self.resolve_ty(world, f, m, ty);
                match (param(*p as usize), bound) {
                    (TyRes::Unknown, b) => b,
                    (TyRes::Def(t), TyRes::Def(b))
                        if self.traits.contains(&t) && !self.extends(t, b, 0) =>
                    {
                        TyRes::Def(b)
                    }
                    (t, _) => t,
                }
            }
            (Ty::Generic(p, args), Some(param))
                if args.iter().any(|a| matches!(a, Ty::Param(_))) =>
            {
                self.generic_ty(world, f, m, p, None, &|i| {
                    args.get(i).map(|a| match a {
                        Ty::Param(k) => param(*k as usize),
                        a => self.resolve_ty(world, f, m, a),
                    })
                })
            }
            _ => self.resolve_ty(world, f, m, ty),
        }
    }

    /// The type of parameter `param` of the closure fn `d` takes as
    /// argument `arg` (see [`crate::extract::rust::ClosureSig`]).
    pub fn closure_param_ty(&self, world: &World, d: SymId, arg: u8, param: u8) -> TyRes {
        let Some(sigs) = self.closures.get(&d) else {
            return TyRes::Unknown;
        };
        let Some(scope) = scope_of(world, d.file) else {
            return TyRes::Unknown;
        };
        let Some(c) = sigs
            .iter()
            .map(|&i| &scope.closures[i as usize])
            .find(|c| c.arg == arg)
        else {
            return TyRes::Unknown;
        };
        let Some(ty) = c.params.get(param as usize) else {
            return TyRes::Unknown;
        };
        let m = self.file_mod[d.file.0 as usize] + c.module;
        // `F: FnMut(G::EdgeRef)`: where the closure is written, `G` is
        // some type, and its `EdgeRef` some type with the bound.
        let projection = match ty {
            Ty::Path(p) if p.len() >= 2 => self.projection_bound(world, d.file, m, p, None),
            _ => None,
        };
        match projection {
            Some(b) => TyRes::Impls(b),
            None => self.resolve_ty_with(world, d.file, m, ty, None),
        }
    }

    /// Whether trait method `d` is declared to return one of its trait's
    /// bounded associated types (`fn off(&self) -> Self::Offset`): on a
    /// concrete type that is the impl's type (`type Offset = Fixed`), not
    /// a value of the bounding trait.
    pub fn returns_projection(&self, world: &World, d: SymId) -> bool {
        let Some(tr) = world.head(d).parent.map(|p| SymId {
            file: d.file,
            def: p,
        }) else {
            return false;
        };
        if !self.traits.contains(&tr) {
            return false;
        }
        let Some((f, i)) = self.ret(d) else {
            return false;
        };
        let Some(scope) = scope_of(world, f) else {
            return false;
        };
        // `Self::Offset` is written as the trait's path and the name.
        let Some(Ty::Path(p)) = scope.rets.get(i as usize).map(|r| &r.ty) else {
            return false;
        };
        p.len() >= 2
            && p.last()
                .and_then(|&l| self.gnames[f.0 as usize].get(l as usize))
                .is_some_and(|&g| self.assoc_ty_decl(tr, g).is_some())
    }

    /// The declared return type of fn `d`.
    pub fn ret_ty(&self, world: &World, d: SymId) -> TyRes {
        self.ret_ty_with(world, d, None)
    }

    /// The declared return type of fn `d`, with `first` looking names up
    /// in the fns around `d` first (`type Handles = JoinSet<()>;` in the
    /// body of the fn that nests `fn make() -> (Senders, Handles)`).
    pub fn ret_ty_with(&self, world: &World, d: SymId, first: Option<FirstLookup>) -> TyRes {
        let Some((f, i)) = self.ret(d) else {
            return TyRes::Unknown;
        };
        let Some(scope) = scope_of(world, f) else {
            return TyRes::Unknown;
        };
        let r = &scope.rets[i as usize];
        let m = self.file_mod[f.0 as usize] + r.module;
        self.resolve_ty_with(world, f, m, &r.ty, first)
    }
}

/// Run `f`, a lookup started with [`RESOLVING`] `height` deep; the flag
/// says its result may be memoized: no lookup in it gave up at the depth
/// limit or found a `use` in progress below `height`. Both are passed on
/// to the lookup around, but for a cut at `height` itself (the `use` that
/// `f` resolves).
fn tracked<T>(height: usize, f: impl FnOnce() -> T) -> (T, bool) {
    let outer_truncated = TRUNCATED.with(|t| t.replace(false));
    let outer_cut = CUT.with(|c| c.replace(usize::MAX));
    let v = f();
    let truncated = TRUNCATED.with(|t| t.replace(outer_truncated || t.get()));
    let cut = CUT.with(|c| c.get());
    let passed = if cut < height { cut } else { usize::MAX };
    CUT.with(|c| c.set(outer_cut.min(passed)));
    (v, !truncated && cut >= height)
}
