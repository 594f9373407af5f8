//! Text from model files made safe for a terminal: [`printable`]. The bottom of the crate: it
//! imports nothing from it, so every module may use it (`render` re-exports it, as
//! `synaptic_plan::render::printable`, for callers outside the crate).
//!
//! Guarantee: the text [`printable`] returns holds no control character.

use std::borrow::Cow;

/// `s` with every control character (C0, DEL, C1: terminal escapes, newlines, tabs) written as
/// a visible Rust-style escape (`\u{1b}`, `\n`); borrowed when there is none.
///
/// ```
/// use synaptic_plan::render::printable;
/// assert_eq!(printable("conv_1"), "conv_1");
/// assert_eq!(printable("a\u{1b}[31mb\n"), "a\\u{1b}[31mb\\n");
/// ```
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}
