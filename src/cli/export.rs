//! GraphML and Graphviz renderings of the exported graph.

use std::fmt::Write as _;

use crate::api::Export;

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn graphml(g: &Export) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str("<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n");
    for (id, for_, name, ty) in [
        ("key", "node", "key", "string"),
        ("name", "node", "name", "string"),
        ("kind", "node", "kind", "string"),
        ("file", "node", "file", "string"),
        ("line", "node", "line", "int"),
        ("column", "node", "column", "int"),
        ("end_line", "node", "end_line", "int"),
        ("ekind", "edge", "kind", "string"),
        ("confidence", "edge", "confidence", "double"),
        ("status", "edge", "status", "string"),
        ("source", "edge", "source", "string"),
        ("site", "edge", "site", "string"),
    ] {
        let _ = writeln!(
            out,
            "  <key id=\"{id}\" for=\"{for_}\" attr.name=\"{name}\" attr.type=\"{ty}\"/>"
        );
    }
    out.push_str("  <graph id=\"refgraph\" edgedefault=\"directed\">\n");
    for n in &g.nodes {
        let _ = writeln!(
            out,
            "    <node id=\"n{}\"><data key=\"key\">{}</data><data key=\"name\">{}</data><data key=\"kind\">{}</data><data key=\"file\">{}</data><data key=\"line\">{}</data><data key=\"column\">{}</data><data key=\"end_line\">{}</data></node>",
            n.id,
            xml_escape(&n.key),
            xml_escape(&n.name),
            n.kind,
            xml_escape(&n.file),
            n.line,
            n.column,
            n.end_line
        );
    }
    for e in &g.edges {
        let site = e
            .site
            .as_ref()
            .map(|s| format!("{}:{}:{}", s.file, s.line, s.column))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    <edge source=\"n{}\" target=\"n{}\"><data key=\"ekind\">{}</data><data key=\"confidence\">{}</data><data key=\"status\">{}</data><data key=\"source\">{}</data><data key=\"site\">{}</data></edge>",
            e.src,
            e.dst,
            e.kind,
            e.confidence,
            e.status,
            xml_escape(&e.source),
            xml_escape(&site)
        );
    }
    out.push_str("  </graph>\n</graphml>\n");
    out
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn dot(g: &Export) -> String {
    let mut out = String::from("digraph refgraph {\n  node [shape=box, fontname=\"monospace\"];\n");
    for n in &g.nodes {
        let _ = writeln!(
            out,
            "  n{} [label=\"{}\\n{}\", kind=\"{}\"];",
            n.id,
            dot_escape(&n.key),
            n.kind,
            n.kind
        );
    }
    for e in &g.edges {
        let style = match e.status.as_str() {
            "verified" => "solid",
            "syntactic" => "solid",
            _ => "dashed",
        };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label=\"{} {}\", style={style}];",
            e.src, e.dst, e.kind, e.confidence
        );
    }
    out.push_str("}\n");
    out
}
