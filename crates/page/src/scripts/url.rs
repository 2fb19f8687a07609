//! URLs completed against a base as DevTools' `Common.ParsedURL` does it
//! (`completeURL`), for a script's `sourceURL` and source map URL. The
//! parser takes `SCHEME://[USER@]HOST[:PORT][/PATH][?QUERY][#FRAGMENT]`
//! with the choices of the backtracking regular expression DevTools uses
//! (a `blob:` prefix set aside first): the user part when there can be
//! one, the host as long as the rest still reads (a host may hold `?`,
//! `#` and `@`).

/// A URL the parser accepts, in its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parsed<'a> {
    /// The scheme in lower case (`blob` for a `blob:` URL).
    scheme: String,
    /// For a `blob:` URL, the scheme of the URL inside.
    blob_inner_scheme: Option<String>,
    host: &'a str,
    port: &'a str,
    /// The path, `/` when the URL has none.
    path: &'a str,
    query: &'a str,
    fragment: &'a str,
}

impl Parsed<'_> {
    fn is_data(&self) -> bool {
        self.scheme == "data"
    }

    fn security_origin(&self) -> String {
        if self.is_data() {
            return "data:".to_owned();
        }
        let scheme = self.blob_inner_scheme.as_deref().unwrap_or(&self.scheme);
        let mut domain = self.host.to_owned();
        if !self.port.is_empty() {
            domain.push(':');
            domain.push_str(self.port);
        }
        if scheme.is_empty() && domain.is_empty() {
            return String::new();
        }
        format!("{scheme}://{domain}")
    }

    /// The path up to its last `/` (empty when it has none).
    fn folder(&self) -> &str {
        self.path.rfind('/').map_or("", |i| &self.path[..i])
    }
}

/// JavaScript's `\s`.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// A line terminator, which a regular expression's `.` does not match.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

fn is_user_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=:".contains(&b)
}

/// What follows a URL's host: its port, path (`None`: none), query and
/// fragment.
type Tail<'a> = (&'a str, Option<&'a str>, &'a str, &'a str);

/// `[:PORT][/PATH][?QUERY][#FRAGMENT]` to the end of `s`.
fn tail(s: &str) -> Option<Tail<'_>> {
    let mut rest = s;
    let mut port = "";
    if let Some(after) = rest.strip_prefix(':') {
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        port = &after[..digits];
        rest = &after[digits..];
    }
    let mut path = None;
    if rest.starts_with('/') {
        let end = rest.find(['#', '?']).unwrap_or(rest.len());
        path = Some(&rest[..end]);
        rest = &rest[end..];
    }
    let mut query = "";
    if let Some(after) = rest.strip_prefix('?') {
        let end = after.find('#').unwrap_or(after.len());
        query = &after[..end];
        rest = &after[end..];
    }
    let mut fragment = "";
    if let Some(after) = rest.strip_prefix('#') {
        if after.chars().any(is_line_terminator) {
            return None;
        }
        fragment = after;
        rest = "";
    }
    rest.is_empty().then_some((port, path, query, fragment))
}

/// The host at the start of `s` and what follows it, tried as the
/// regular expression tries them: `[::]` or `[::D]` first, then the
/// longest run of characters other than white space, `/` and `:`, then
/// shorter ones (only a cut before a `?` or `#` can leave a tail that
/// reads).
fn host_and_tail(s: &str) -> Option<(&str, Tail<'_>)> {
    if let Some(inner) = s.strip_prefix("[::") {
        let digit = usize::from(inner.as_bytes().first().is_some_and(u8::is_ascii_digit));
        if inner[digit..].starts_with(']') {
            let len = 3 + digit + 1;
            if let Some(t) = tail(&s[len..]) {
                return Some((&s[..len], t));
            }
        }
    }
    let run = s
        .char_indices()
        .find(|&(_, c)| is_js_space(c) || c == '/' || c == ':')
        .map_or(s.len(), |(i, _)| i);
    let cuts = std::iter::once(run).chain(s[..run].rmatch_indices(['?', '#']).map(|(i, _)| i));
    cuts.into_iter().find_map(|cut| tail(&s[cut..]).map(|t| (&s[..cut], t)))
}

/// The URL's parts, or `None` when DevTools' parser does not accept it.
fn parse(url: &str) -> Option<Parsed<'_>> {
    let (blob, inner) = match url.strip_prefix("blob:") {
        Some(inner) => (true, inner),
        None => (false, url),
    };
    let bytes = inner.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let scheme_len = bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
        .count();
    let after_scheme = inner[scheme_len..].strip_prefix("://")?;
    let scheme = inner[..scheme_len].to_ascii_lowercase();
    let user_len = after_scheme.bytes().take_while(|b| is_user_byte(*b)).count();
    let with_user = after_scheme[user_len..].strip_prefix('@').and_then(host_and_tail);
    let (host, (port, path, query, fragment)) = with_user.or_else(|| host_and_tail(after_scheme))?;
    let (scheme, blob_inner_scheme) = if blob {
        ("blob".to_owned(), Some(scheme))
    } else {
        (scheme, None)
    };
    Some(Parsed {
        scheme,
        blob_inner_scheme,
        host,
        port,
        path: path.unwrap_or("/"),
        query,
        fragment,
    })
}

/// `.` and `..` segments resolved, as DevTools' `normalizePath` does.
pub(crate) fn normalize_path(path: &str) -> String {
    if !path.contains('.') {
        return path.to_owned();
    }
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = (if absolute { &path[1..] } else { path }).split('/').collect();
    let mut kept: Vec<&str> = Vec::new();
    for segment in &segments {
        match *segment {
            "." => {}
            ".." => {
                kept.pop();
            }
            other => kept.push(other),
        }
    }
    let mut normalized = kept.join("/");
    if absolute && !normalized.is_empty() {
        normalized.insert(0, '/');
    }
    let last = segments.last().copied().unwrap_or("");
    if !normalized.ends_with('/') && (path.ends_with('/') || last == "." || last == "..") {
        normalized.push('/');
    }
    normalized
}

/// JavaScript's `String.prototype.trim`.
fn js_trim(s: &str) -> &str {
    s.trim_matches(|c| is_js_space(c) || is_line_terminator(c))
}

/// `href` completed against `base`, as DevTools' `ParsedURL.completeURL`
/// does; `None` when `href` is relative and `base` does not parse.
pub fn complete_url(base: &str, href: &str) -> Option<String> {
    if ["data:", "blob:", "javascript:", "mailto:"]
        .iter()
        .any(|p| href.starts_with(p))
    {
        return Some(href.to_owned());
    }
    if let Some(absolute) = parse(js_trim(href)) {
        let mut out = absolute.security_origin();
        out.push_str(&normalize_path(absolute.path));
        if !absolute.query.is_empty() {
            out.push('?');
            out.push_str(absolute.query);
        }
        if !absolute.fragment.is_empty() {
            out.push('#');
            out.push_str(absolute.fragment);
        }
        return Some(out);
    }
    let base = parse(base)?;
    if base.is_data() {
        return Some(href.to_owned());
    }
    if href.starts_with("//") {
        return Some(format!("{}:{href}", base.scheme));
    }
    let origin = base.security_origin();
    let query = if base.query.is_empty() {
        String::new()
    } else {
        format!("?{}", base.query)
    };
    if href.is_empty() {
        return Some(format!("{origin}{}{query}", base.path));
    }
    if href.starts_with('#') {
        return Some(format!("{origin}{}{query}{href}", base.path));
    }
    if href.starts_with('?') {
        return Some(format!("{origin}{}{href}", base.path));
    }
    let split = href.find(['#', '?']).unwrap_or(href.len());
    let (path, suffix) = href.split_at(split);
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("{}/{path}", base.folder())
    };
    Some(format!("{origin}{}{suffix}", normalize_path(&path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_urls_complete_against_the_base() {
        let base = "https://a.test/js/app.min.js?v=2";
        let c = |href| complete_url(base, href);
        assert_eq!(c("app.js.map").as_deref(), Some("https://a.test/js/app.js.map"));
        assert_eq!(c("../maps/./app.map").as_deref(), Some("https://a.test/maps/app.map"));
        assert_eq!(c("/root.map#x").as_deref(), Some("https://a.test/root.map#x"));
        assert_eq!(c("//cdn.test/m.map").as_deref(), Some("https://cdn.test/m.map"));
        assert_eq!(c("").as_deref(), Some("https://a.test/js/app.min.js?v=2"));
        assert_eq!(c("#f").as_deref(), Some("https://a.test/js/app.min.js?v=2#f"));
        assert_eq!(c("?q").as_deref(), Some("https://a.test/js/app.min.js?q"));
        assert_eq!(
            c("data:application/json;base64,e30=").as_deref(),
            Some("data:application/json;base64,e30=")
        );
    }

    #[test]
    fn absolute_urls_are_normalized_and_bad_bases_give_none() {
        assert_eq!(
            complete_url("x", " HTTP://b.test:8080/a/../b/./c.map ").as_deref(),
            Some("http://b.test:8080/b/c.map")
        );
        assert_eq!(complete_url("not a url", "a.map"), None);
        assert_eq!(complete_url("", "a.map"), None);
        // A `data://` base leaves the href as it is.
        assert_eq!(complete_url("data://x/y", "a.map").as_deref(), Some("a.map"));
    }

    #[test]
    fn the_parser_makes_the_regular_expressions_choices() {
        let p = parse("http://a.com?x").unwrap();
        assert_eq!((p.host, p.path, p.query), ("a.com?x", "/", ""));
        let p = parse("http://a?b:c").unwrap();
        assert_eq!((p.host, p.query), ("a", "b:c"));
        let p = parse("http://u:p@h.test:81/p?q#f").unwrap();
        assert_eq!(
            (p.host, p.port, p.path, p.query, p.fragment),
            ("h.test", "81", "/p", "q", "f")
        );
        let p = parse("blob:HTTPS://h.test/uuid").unwrap();
        assert_eq!(
            (p.scheme.as_str(), p.security_origin().as_str()),
            ("blob", "https://h.test")
        );
        assert!(parse("http://h.test:x").is_none());
        assert!(parse("http://h.test/#a\nb").is_none());
        assert_eq!(normalize_path("/a/b/.."), "/a/");
        assert_eq!(normalize_path("."), "/");
    }
}
