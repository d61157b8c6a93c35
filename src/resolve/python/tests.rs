//! Resolution rules for Python.

use super::*;

#[test]
fn keys() {
    let mut layout = Layout::default();
    for f in ["src/shop/__init__.py", "src/shop/x.py", "tests/test_a.py", "a.py"] {
        layout.files.insert(f.to_string());
    }
    assert_eq!(module_key("src/shop/x.py", &layout), "shop.x");
    assert_eq!(module_key("src/shop/__init__.py", &layout), "shop");
    assert_eq!(module_key("tests/test_a.py", &layout), "test_a");
    assert_eq!(module_key("a.py", &layout), "a");
}
