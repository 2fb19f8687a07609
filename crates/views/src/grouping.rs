//! Grouping, the Performance panel's "Group by" setting of the Call Tree
//! and Bottom-Up: each event gets a group id (its category, the domain,
//! host or URL of its script or resource, its frame), and the views'
//! top-level nodes go under one group node per id. This module says which
//! group an event is in and how a group is labelled; `lib.rs` builds the
//! group nodes. The rules are those of `docs/views.md`, "Grouping".

use ahash::AHashMap;
use tracekit_engine::support::names;
use tracekit_engine::support::GroupArgs;
use tracekit_engine::CallFrame;
use tracekit_engine::{Analysis, Sym};

use crate::styles::{self, Category};
use crate::url::scheme_and_host;

/// How the views group their top-level nodes (the panel's `GroupBy`).
/// Grouping by URL, domain, subdomain or frame reads what the analysis
/// keeps of the events' args only when made with
/// [`tracekit_engine::AnalyzeOptions::with_group_args`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum GroupBy {
    /// No grouping.
    #[default]
    None,
    /// By the category of the event's timeline style (`scripting`,
    /// `rendering`...).
    Category,
    /// By the domain of the event's URL (its host's last two labels).
    Domain,
    /// By the host of the event's URL.
    Subdomain,
    /// By the event's URL.
    Url,
    /// By the event's frame (the main frame when it names none).
    Frame,
}

/// Grouping by URL, domain, subdomain or frame asked of an analysis made
/// without what it reads of the events
/// ([`tracekit_engine::AnalyzeOptions::with_group_args`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupingError {
    group_by: GroupBy,
}

impl GroupingError {
    /// The grouping asked for.
    pub fn group_by(&self) -> GroupBy {
        self.group_by
    }
}

impl std::fmt::Display for GroupingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "grouping by {} needs an analysis made with AnalyzeOptions::with_group_args(true)",
            self.group_by.name()
        )
    }
}

impl std::error::Error for GroupingError {}

/// The group id of "no URL" and "no frame": DevTools' own empty group.
const EMPTY_GROUP: &str = "";

impl GroupBy {
    /// Every kind.
    pub const ALL: [GroupBy; 6] = [
        GroupBy::None,
        GroupBy::Category,
        GroupBy::Domain,
        GroupBy::Subdomain,
        GroupBy::Url,
        GroupBy::Frame,
    ];

    /// Its name on the command line (`none`, `category`, ...).
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::None => "none",
            GroupBy::Category => "category",
            GroupBy::Domain => "domain",
            GroupBy::Subdomain => "subdomain",
            GroupBy::Url => "url",
            GroupBy::Frame => "frame",
        }
    }

    /// The kind named `name` (see [`GroupBy::name`]).
    pub fn from_name(name: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.name() == name)
    }

    /// Whether the groups come from the events' args (URLs, frames), which
    /// an analysis keeps only when asked to
    /// ([`tracekit_engine::AnalyzeOptions::group_args`]).
    pub fn reads_args(self) -> bool {
        matches!(
            self,
            GroupBy::Domain | GroupBy::Subdomain | GroupBy::Url | GroupBy::Frame
        )
    }

    /// Whether `analysis` holds what this grouping reads: the events'
    /// group args when it [reads them](GroupBy::reads_args).
    ///
    /// # Errors
    ///
    /// [`GroupingError`] when the analysis was made without them.
    pub fn check(self, analysis: &Analysis) -> Result<(), GroupingError> {
        if self.reads_args() && !analysis.has_group_args() {
            return Err(GroupingError { group_by: self });
        }
        Ok(())
    }

    /// The readable label of the group `id`, as the panel shows it: a
    /// category's title; `[unattributed]` for the empty group of URLs and
    /// domains, `[Chrome extensions overhead]` and `[V8 Runtime]` for those
    /// two domains; for frames `Page` for the empty group, else the
    /// frame's URL when the trace gives one; else the id.
    pub fn label(self, id: &str, analysis: &Analysis) -> String {
        const UNATTRIBUTED: &str = "[unattributed]";
        match self {
            GroupBy::Category => Category::from_name(id).map_or(UNATTRIBUTED, Category::title).to_owned(),
            GroupBy::Domain | GroupBy::Subdomain => match id {
                EMPTY_GROUP => UNATTRIBUTED.to_owned(),
                EXTENSION_INTERNAL_PREFIX => "[Chrome extensions overhead]".to_owned(),
                V8_NATIVE_PREFIX => "[V8 Runtime]".to_owned(),
                _ => id.to_owned(),
            },
            GroupBy::Url if id.is_empty() => UNATTRIBUTED.to_owned(),
            GroupBy::Frame if id.is_empty() => "Page".to_owned(),
            GroupBy::Frame => analysis.frame_url(id).unwrap_or(id).to_owned(),
            GroupBy::None | GroupBy::Url => id.to_owned(),
        }
    }
}

/// URLs of the browser's extension internals, one domain group.
const EXTENSION_INTERNAL_PREFIX: &str = "extensions::";
/// URLs of V8's native code (`native V8Runtime`...), one domain group.
const V8_NATIVE_PREFIX: &str = "native ";

/// The domain group of a URL (with `subdomain`, the host group): empty
/// for no URL or one the panel's parser rejects; `extensions::` and
/// `native ` for URLs starting so; `chrome-extension://HOST` for that
/// scheme; the host when it is made of digits and dots (an IPv4 address)
/// or when `subdomain`; else the host's last two dot-separated labels (all
/// of it with one dot or none). Ports and users are never part of it.
pub fn domain_group(url: &str, subdomain: bool) -> String {
    if url.is_empty() {
        return EMPTY_GROUP.to_owned();
    }
    for prefix in [EXTENSION_INTERNAL_PREFIX, V8_NATIVE_PREFIX] {
        if url.starts_with(prefix) {
            return prefix.to_owned();
        }
    }
    let Some(parsed) = scheme_and_host(url) else {
        return EMPTY_GROUP.to_owned();
    };
    let host = parsed.host;
    if parsed.scheme == "chrome-extension" {
        return format!("chrome-extension://{host}");
    }
    if subdomain || (!host.is_empty() && host.bytes().all(|b| b.is_ascii_digit() || b == b'.')) {
        return host.to_owned();
    }
    let mut dots = host.rmatch_indices('.').map(|(i, _)| i);
    match (dots.next(), dots.next()) {
        (Some(_), Some(second_last)) => host[second_last + 1..].to_owned(),
        _ => host.to_owned(),
    }
}

/// Gives events their group, as an index into a table of group ids, and
/// keeps that table with a label per group. Groups are remembered per
/// category, URL and frame, so that each is worked out once.
pub(crate) struct Grouper<'a> {
    group_by: GroupBy,
    analysis: &'a Analysis,
    /// The group ids, by index.
    pub(crate) ids: Vec<String>,
    /// Their labels.
    pub(crate) labels: Vec<String>,
    index: AHashMap<String, u32>,
    /// The category of each event name seen.
    categories: AHashMap<Sym, Category>,
    /// The group of each key seen: a category, a URL or a frame (`None`:
    /// no URL, no frame).
    by_category: AHashMap<Category, u32>,
    by_symbol: AHashMap<Option<Sym>, u32>,
}

impl<'a> Grouper<'a> {
    /// A grouper, if `analysis` holds what it reads ([`GroupBy::check`]).
    pub(crate) fn new(group_by: GroupBy, analysis: &'a Analysis) -> Result<Grouper<'a>, GroupingError> {
        group_by.check(analysis)?;
        Ok(Grouper {
            group_by,
            analysis,
            ids: Vec::new(),
            labels: Vec::new(),
            index: AHashMap::new(),
            categories: AHashMap::new(),
            by_category: AHashMap::new(),
            by_symbol: AHashMap::new(),
        })
    }

    /// The group of a JS call of `frame`: `idle` for the `(idle)` function,
    /// else `scripting`; its script's URL; the main frame.
    pub(crate) fn of_call(&mut self, frame: &CallFrame) -> u32 {
        match self.group_by {
            GroupBy::Category => self.of_category(if frame.function_name == names::IDLE {
                Category::Idle
            } else {
                Category::Scripting
            }),
            GroupBy::Frame => self.of_symbol(None),
            _ => self.of_symbol(Some(frame.url).filter(|u| *u != names::EMPTY)),
        }
    }

    /// The group of a trace event: for categories, `scripting` for the
    /// console and user-timing categories, else the category of its name's
    /// style (`other` without one); its URL or frame from `args`.
    pub(crate) fn of_event(&mut self, name: Sym, cat: Sym, args: Option<&GroupArgs>) -> u32 {
        match self.group_by {
            GroupBy::Category => {
                let interner = self.analysis.strings();
                let category = if matches!(interner.resolve(cat), "blink.console" | "blink.user_timing") {
                    Category::Scripting
                } else {
                    *self
                        .categories
                        .entry(name)
                        .or_insert_with(|| styles::category_of(interner.resolve(name)).unwrap_or(Category::Other))
                };
                self.of_category(category)
            }
            GroupBy::Frame => self.of_symbol(args.and_then(|a| a.frame)),
            _ => self.of_symbol(args.and_then(|a| a.url)),
        }
    }

    fn of_category(&mut self, category: Category) -> u32 {
        if let Some(&group) = self.by_category.get(&category) {
            return group;
        }
        let group = self.intern(category.name().to_owned());
        self.by_category.insert(category, group);
        group
    }

    /// The group of a URL or a frame (`None`: none; a frame then falls
    /// back to the main frame).
    fn of_symbol(&mut self, symbol: Option<Sym>) -> u32 {
        if let Some(&group) = self.by_symbol.get(&symbol) {
            return group;
        }
        let interner = self.analysis.strings();
        let text = |s: Option<Sym>| s.map_or("", |s| interner.resolve(s));
        let id = match self.group_by {
            GroupBy::Frame => {
                let main = self.analysis.main_frame_id();
                symbol.map(|s| interner.resolve(s)).or(main).unwrap_or("").to_owned()
            }
            GroupBy::Domain | GroupBy::Subdomain => domain_group(text(symbol), self.group_by == GroupBy::Subdomain),
            _ => text(symbol).to_owned(),
        };
        let group = self.intern(id);
        self.by_symbol.insert(symbol, group);
        group
    }

    fn intern(&mut self, id: String) -> u32 {
        if let Some(&group) = self.index.get(&id) {
            return group;
        }
        // One group per distinct id of a thread's events, whose tracks index their nodes by u32.
        #[allow(clippy::cast_possible_truncation)]
        let group = self.ids.len() as u32;
        self.labels.push(self.group_by.label(&id, self.analysis));
        self.ids.push(id.clone());
        self.index.insert(id, group);
        group
    }

    /// Whether grouping reads the events' [`GroupArgs`].
    pub(crate) fn reads_args(&self) -> bool {
        self.group_by.reads_args()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_are_the_last_two_labels_of_the_host() {
        let cases = [
            ("https://www.example.com/app.js", "example.com", "www.example.com"),
            ("https://a.b.example.co.uk:8443/x", "co.uk", "a.b.example.co.uk"),
            (
                "http://user:pw@cdn.example.com:80/p?q#f",
                "example.com",
                "cdn.example.com",
            ),
            ("http://localhost:3000/", "localhost", "localhost"),
            ("http://127.0.0.1:9000/x.js", "127.0.0.1", "127.0.0.1"),
            ("http://[::1]:80/", "[::1]", "[::1]"),
            (
                "chrome-extension://abcdef/content.js",
                "chrome-extension://abcdef",
                "chrome-extension://abcdef",
            ),
            ("extensions::SafeBuiltins", "extensions::", "extensions::"),
            ("native V8Runtime", "native ", "native "),
            ("blob:https://www.example.com/uuid", "example.com", "www.example.com"),
            ("file:///home/a.js", "", ""),
            ("data:text/plain,x", "", ""),
            ("about:blank", "", ""),
            ("", "", ""),
            ("http://a.b.", "b.", "a.b."),
            ("http://a.com?x=1", "a.com?x=1", "a.com?x=1"),
        ];
        for (url, domain, subdomain) in cases {
            assert_eq!(domain_group(url, false), domain, "domain of {url:?}");
            assert_eq!(domain_group(url, true), subdomain, "subdomain of {url:?}");
        }
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        for kind in GroupBy::ALL {
            assert_eq!(GroupBy::from_name(kind.name()), Some(kind));
        }
        assert_eq!(GroupBy::from_name("third-party"), None);
    }
}
