//! The scheme and host of a URL as the Performance panel's URL parser
//! (`Common.ParsedURL`) reads them, for grouping by domain. The parser
//! accepts `SCHEME://[USER@]HOST[:PORT][/PATH][?QUERY][#FRAGMENT]` and
//! nothing else (a `blob:` prefix is set aside first), with the choices a
//! backtracking regular expression makes: the user part is taken when it
//! can be, the host is as long as it can be, and a host may hold `@`, `?`
//! and `#` (`http://a.com?x` has the host `a.com?x`).

/// A URL's scheme (lower case; `blob` for a `blob:` URL) and host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemeHost<'a> {
    /// The scheme, in lower case.
    pub scheme: String,
    /// The host, as written (possibly empty).
    pub host: &'a str,
}

/// The scheme and host of `url`, or `None` when the panel's parser finds
/// it invalid (`data:`, `about:blank`, a relative path...).
pub fn scheme_and_host(url: &str) -> Option<SchemeHost<'_>> {
    let (is_blob, rest) = match url.strip_prefix("blob:") {
        Some(inner) => (true, inner),
        None => (false, url),
    };
    let scheme_len = scheme_length(rest)?;
    let after_scheme = rest[scheme_len..].strip_prefix("://")?;
    let scheme = if is_blob {
        "blob".to_owned()
    } else {
        rest[..scheme_len].to_ascii_lowercase()
    };
    // With a user part if there is one that lets the rest match, else
    // without (the host may then hold the `@`).
    let user_len = after_scheme.bytes().take_while(|b| is_user_byte(*b)).count();
    if let Some(after_user) = after_scheme[user_len..].strip_prefix('@') {
        if let Some(host) = host_of(after_user) {
            return Some(SchemeHost { scheme, host });
        }
    }
    host_of(after_scheme).map(|host| SchemeHost { scheme, host })
}

/// The length of the scheme at the start of `s`: a letter, then letters,
/// digits, `+`, `.` and `-`.
fn scheme_length(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    Some(
        bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
            .count(),
    )
}

/// The characters of the user (and password) part.
fn is_user_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=:".contains(&b)
}

/// The host at the start of `s`, if the rest of `s` then reads as
/// `[:PORT][/PATH][?QUERY][#FRAGMENT]`: first the bracketed `[::]` or
/// `[::D]`, then the longest run of characters other than white space,
/// `/` and `:`, then shorter ones.
fn host_of(s: &str) -> Option<&str> {
    if let Some(inner) = s.strip_prefix("[::") {
        let digit = usize::from(inner.as_bytes().first().is_some_and(u8::is_ascii_digit));
        if inner[digit..].starts_with(']') {
            let len = 3 + digit + 1;
            if port_and_rest_match(&s[len..]) {
                return Some(&s[..len]);
            }
        }
    }
    let run = s
        .char_indices()
        .find(|&(_, c)| js_is_space(c) || c == '/' || c == ':')
        .map_or(s.len(), |(i, _)| i);
    if port_and_rest_match(&s[run..]) {
        return Some(&s[..run]);
    }
    // A shorter host leaves a host character first, which only a query
    // (`?`) or a fragment (`#`) can start.
    s[..run]
        .char_indices()
        .rev()
        .filter(|&(_, c)| c == '?' || c == '#')
        .find(|&(i, _)| port_and_rest_match(&s[i..]))
        .map(|(i, _)| &s[..i])
}

/// Whether `s` reads as `[:PORT][/PATH][?QUERY][#FRAGMENT]`.
fn port_and_rest_match(s: &str) -> bool {
    match s.strip_prefix(':') {
        Some(port) => {
            let digits = port.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && rest_matches(&port[digits..])
        }
        None => rest_matches(s),
    }
}

/// Whether `s` reads as `[/PATH][?QUERY][#FRAGMENT]`: empty, or starting
/// with one of `/?#`, with no line break in the fragment (after the first
/// `#`; a path or query may hold any character).
fn rest_matches(s: &str) -> bool {
    if !(s.is_empty() || s.starts_with(['/', '?', '#'])) {
        return false;
    }
    s.split_once('#')
        .is_none_or(|(_, fragment)| !fragment.contains(['\n', '\r', '\u{2028}', '\u{2029}']))
}

/// JavaScript's `\s`.
fn js_is_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(url, scheme and host or None)`, as the panel's parser reads them
    /// (checked against its regular expression).
    const CASES: &[(&str, Option<(&str, &str)>)] = &[
        ("https://a.b.c.com/x", Some(("https", "a.b.c.com"))),
        ("http://user:pw@host.com:80/p?q#f", Some(("http", "host.com"))),
        ("http://a.com?x=1", Some(("http", "a.com?x=1"))),
        ("http://a.com?x=1 b", Some(("http", "a.com"))),
        ("http://a@b@c.com/", Some(("http", "b@c.com"))),
        ("HTTP://X.Y.Z", Some(("http", "X.Y.Z"))),
        ("file:///a/b", Some(("file", ""))),
        ("blob:https://www.ex.com/uu", Some(("blob", "www.ex.com"))),
        ("chrome-extension://abc/x.js", Some(("chrome-extension", "abc"))),
        ("CHROME-EXTENSION://Abc/", Some(("chrome-extension", "Abc"))),
        ("http://[::1]:80/", Some(("http", "[::1]"))),
        ("http://[::]/", Some(("http", "[::]"))),
        ("http://127.0.0.1:9000/x", Some(("http", "127.0.0.1"))),
        ("http://a.b.", Some(("http", "a.b."))),
        ("data:foo", None),
        ("about:blank", None),
        ("http://a.com/#x\ny", None),
        ("http://a.com/x\ny", Some(("http", "a.com"))),
        ("http://a b.com/", None),
        ("http://a.com:/x", None),
        ("http://a.com:80x", None),
        ("x://", Some(("x", ""))),
        ("1http://a", None),
        ("http://a.com#frag?x", Some(("http", "a.com#frag?x"))),
        ("http://a:b@", Some(("http", ""))),
        ("http://\u{a0}a.com", None),
        ("http://a.com\u{2028}", None),
        ("http://a.com\u{85}", Some(("http", "a.com\u{85}"))),
        ("https://a.com?q#/p", Some(("https", "a.com?q#"))),
        ("http://a.com:12:34/", None),
        ("http://:80/", Some(("http", ""))),
        ("http://user@:80/x", Some(("http", ""))),
        ("javascript:void(0)", None),
        ("", None),
        ("native V8Runtime", None),
        ("extensions::x", None),
        ("blob:", None),
        ("http://[::12]/", None),
    ];

    #[test]
    fn urls_read_as_the_panels_parser_reads_them() {
        for (url, expected) in CASES {
            let got = scheme_and_host(url);
            let got = got.as_ref().map(|s| (s.scheme.as_str(), s.host));
            assert_eq!(got, *expected, "{url:?}");
        }
    }
}
