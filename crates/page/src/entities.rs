//! Which third-party entity a URL belongs to, as DevTools' trace engine
//! tells it: the entity of the `third-party-web` list (its `nostats`
//! subset, vendored under `vendor/third-party-web/`) whose domains match
//! the URL's host, or else an entity made up for the URL's root domain
//! (any `http…` URL) or Chrome extension; and the map of the events of
//! each entity ([`EntityMappings`]) that the NetworkRequests handler
//! starts and the Renderer handler completes.
//!
//! The domain of a URL is found as `third-party-web` finds it, with two
//! regular expressions whose matching is reproduced here by hand, match
//! for match (the leftmost run of domain characters with a dot, or
//! `localhost`, anywhere in the URL; else the text after `://`), so that
//! odd URLs get the same entity too.

use std::sync::OnceLock;

use tracekit_events::{EventIndex, Id, Interner, Strings, Sym};

use crate::Map;

/// The vendored entity list (`third-party-web` 0.29.2, MIT).
const ENTITIES_JSON: &str = include_str!("../vendor/third-party-web/entities-nostats.json");

/// A third-party entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entity {
    /// The entity of this position in the `third-party-web` list.
    Known(u32),
    /// An entity made up for a URL that no known entity has: named after
    /// the URL's root domain.
    MadeUp(Sym),
    /// An entity made up for a Chrome extension: its origin
    /// (`chrome-extension://ID`), the host naming it.
    Extension {
        /// `chrome-extension://ID`.
        origin: Sym,
        /// `ID`, the entity's name.
        host: Sym,
    },
}

impl Entity {
    /// The entity's name (what DevTools shows, and keys the dump by).
    pub fn name(self, strings: &Strings) -> &str {
        match self {
            Entity::Known(i) => &dataset().names[i as usize],
            Entity::MadeUp(root) => strings.resolve(root),
            Entity::Extension { host, .. } => strings.resolve(host),
        }
    }

    /// The entity a URL belongs to (DevTools' `getEntityForUrl`), `None`
    /// for a URL with no domain that is neither `http…` nor a Chrome
    /// extension's.
    pub fn for_url(url: &str, interner: &mut Interner) -> Option<Entity> {
        if let Some(known) = dataset().entity(url) {
            return Some(Entity::Known(known));
        }
        if let Some(rest) = url.strip_prefix("chrome-extension://") {
            let host = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
            return Some(Entity::Extension {
                origin: interner.intern(&format!("chrome-extension://{host}")),
                host: interner.intern(host),
            });
        }
        if !url.starts_with("http") {
            return None;
        }
        root_domain(url).map(|root| Entity::MadeUp(interner.intern(root)))
    }
}

impl Entity {
    /// The entity of a URL as [`Entity::for_url`] finds it, without
    /// interning: its name, and the entity when it is known or its name
    /// is already interned (else no event has it). `None` when the URL
    /// has no entity.
    pub fn find_for_url(url: &str, strings: &Strings) -> Option<(Option<Entity>, String)> {
        if let Some(known) = dataset().entity(url) {
            let entity = Entity::Known(known);
            return Some((Some(entity), entity.name(strings).to_owned()));
        }
        if let Some(rest) = url.strip_prefix("chrome-extension://") {
            let host = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
            let origin = strings.lookup(&format!("chrome-extension://{host}"));
            let entity = origin
                .zip(strings.lookup(host))
                .map(|(origin, host)| Entity::Extension { origin, host });
            return Some((entity, host.to_owned()));
        }
        if !url.starts_with("http") {
            return None;
        }
        let root = root_domain(url)?;
        Some((strings.lookup(root).map(Entity::MadeUp), root.to_owned()))
    }
}

/// An event of an entity: a network request (its position in
/// [`crate::NetworkRequests::requests`]), an event of the input, or an
/// entry DevTools made of a thread's track (a JavaScript call, or a
/// begin/end pair made one event).
///
/// A big trace's entity mappings hold one of these for every JS call of
/// every thread (millions), so an entry of a track is named by its place
/// alone, in 20 bytes; what else DevTools' synthetic event holds (its
/// ids, start, duration, profile node) is read from the tracks through
/// [`TrackEntries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntityEvent {
    /// The synthetic event of a network request, by its position.
    Request(u32),
    /// An event of the input, by its index.
    Event(EventIndex),
    /// A JS call of a thread's track (DevTools' ProfileCall).
    ProfileCall {
        /// Its thread.
        thread: ThreadNumber,
        /// Its position among its thread's track nodes: what tells apart
        /// two calls that agree on everything else.
        position: u32,
        /// The CPU sample whose stack opened it.
        sample: CallSample,
    },
    /// A begin/end pair of the input, made into one complete event
    /// (DevTools' Renderer handler makes a new event of the two).
    BeginEnd {
        /// Its thread.
        thread: ThreadNumber,
        /// Its position among its thread's track nodes (its duration is
        /// that node's).
        position: u32,
        /// The begin event's index.
        begin: EventIndex,
        /// The begin event's whole text (its object), interned: the pair
        /// is written as the begin with phase `X` and the pair's duration.
        text: Sym,
    },
}

// The size is the point of naming entries by place (see above).
const _: () = assert!(std::mem::size_of::<EntityEvent>() == 20);

/// A thread of the tracks by its number: the threads of every process
/// (kept by DevTools or not) numbered from 0 in the tracks' order, process
/// by process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadNumber(pub u32);

/// Which CPU sample's stack opened a JS call: its index among all the
/// samples of its profile, or none when the stack came from a trace
/// event's sample trace id (DevTools numbers it -1). Four bytes, as an
/// `Option<u32>` would take eight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallSample(u32);

impl CallSample {
    /// No sample: the stack came from a trace event's sample trace id.
    pub const NONE: CallSample = CallSample(u32::MAX);

    /// The sample of this index (`u32::MAX` is [`CallSample::NONE`]).
    pub fn new(index: Option<u32>) -> CallSample {
        index.map_or(CallSample::NONE, CallSample)
    }

    /// The sample's index, if any.
    pub fn index(self) -> Option<u32> {
        (self != CallSample::NONE).then_some(self.0)
    }
}

/// An entry of a thread's track as DevTools' synthetic event of it has
/// it: what [`EntityEvent::ProfileCall`] and [`EntityEvent::BeginEnd`]
/// name by place.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackEntry {
    /// Its process.
    pub pid: Id,
    /// Its thread.
    pub tid: Id,
    /// Its start, in microseconds.
    pub ts: f64,
    /// Its duration, in microseconds (0 for an entry without one).
    pub dur: f64,
    /// A JS call's profile node id (0 for an event).
    pub node_id: i64,
}

/// The tracks, as what they hold of the entries [`EntityEvent`] names by
/// place (the Renderer handler's data implements it).
pub trait TrackEntries {
    /// The entry at `position` in `thread`'s track.
    fn entry(&self, thread: ThreadNumber, position: u32) -> Option<TrackEntry>;
}

/// The events of each entity, in the order they were added (DevTools'
/// `entityMappings.eventsByEntity`): the NetworkRequests handler adds its
/// requests' events; the Renderer handler then adds, once each, the
/// events of its tracks that have a URL ([`EntityMappings::add_once`]).
#[derive(Debug, Clone, Default)]
pub struct EntityMappings {
    /// Each entity's events, entities in the order first met.
    pub events_by_entity: Map<Entity, Vec<EntityEvent>>,
    /// The input events already given an entity.
    mapped: ahash::AHashSet<EventIndex>,
    /// The room reserved for the lists not made yet ([`Self::reserve`]).
    reserved: ahash::AHashMap<Entity, usize>,
}

impl EntityMappings {
    /// Makes room for `additional` more events in `entity`'s list, now or
    /// when the list is made (an entity gets a list only once an event is
    /// added to it), so that a long list is not grown step by step.
    pub fn reserve(&mut self, entity: Entity, additional: usize) {
        match self.events_by_entity.get_mut(&entity) {
            Some(list) => list.reserve_exact(additional),
            None => *self.reserved.entry(entity).or_default() += additional,
        }
    }

    /// `entity`'s list in `lists`, made (with the room `reserved` for
    /// it) if needed.
    fn list<'a>(
        lists: &'a mut Map<Entity, Vec<EntityEvent>>,
        reserved: &mut ahash::AHashMap<Entity, usize>,
        entity: Entity,
    ) -> &'a mut Vec<EntityEvent> {
        lists
            .entry(entity)
            .or_insert_with(|| Vec::with_capacity(reserved.remove(&entity).unwrap_or(0)))
    }

    /// Adds events to an entity's list.
    pub fn add(&mut self, entity: Entity, events: impl IntoIterator<Item = EntityEvent>) {
        let list = Self::list(&mut self.events_by_entity, &mut self.reserved, entity);
        for event in events {
            if let EntityEvent::Event(index) = event {
                self.mapped.insert(index);
            }
            list.push(event);
        }
    }

    /// Adds an event to an entity's list unless it has one already (as
    /// DevTools' `addEventToEntityMapping`); returns whether it was added.
    pub fn add_once(&mut self, entity: Entity, event: EntityEvent) -> bool {
        if let EntityEvent::Event(index) = event {
            if self.mapped.contains(&index) {
                return false;
            }
        }
        self.add(entity, [event]);
        true
    }

    /// [`Self::add_once`] of each of `events`, in order, all of one
    /// entity: its list is looked up once (a thread's JS calls come in
    /// runs of one script's entity).
    pub fn add_each_once(&mut self, entity: Entity, events: impl IntoIterator<Item = EntityEvent>) {
        let mapped = &mut self.mapped;
        let mut added = events.into_iter().filter(|event| match event {
            EntityEvent::Event(index) => mapped.insert(*index),
            _ => true,
        });
        // An entity gets a list only once an event is added to it.
        if let Some(first) = added.next() {
            let list = Self::list(&mut self.events_by_entity, &mut self.reserved, entity);
            list.push(first);
            list.extend(added);
        }
    }
}

/// The `third-party-web` list, indexed as its own finder indexes it.
struct Dataset {
    names: Vec<Box<str>>,
    by_domain: ahash::AHashMap<Box<str>, u32>,
    by_sub_domain: ahash::AHashMap<Box<str>, u32>,
    by_root_domain: ahash::AHashMap<Box<str>, u32>,
}

/// The entity list, read the first time an entity is looked up.
fn dataset() -> &'static Dataset {
    static DATASET: OnceLock<Dataset> = OnceLock::new();
    DATASET.get_or_init(|| Dataset::read(ENTITIES_JSON))
}

#[derive(serde::Deserialize)]
struct EntityJson {
    name: String,
    #[serde(default)]
    domains: Vec<String>,
}

impl Dataset {
    fn read(json: &str) -> Dataset {
        // The vendored list is a fixed, valid file (its test reads it).
        let entities: Vec<EntityJson> = serde_json::from_str(json).unwrap_or_default();
        let mut set = Dataset {
            names: Vec::with_capacity(entities.len()),
            by_domain: ahash::AHashMap::default(),
            by_sub_domain: ahash::AHashMap::default(),
            by_root_domain: ahash::AHashMap::default(),
        };
        for (i, entity) in entities.into_iter().enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            for domain in &entity.domains {
                set.by_domain.entry(domain.as_str().into()).or_insert(i);
                if let Some(wildcard) = domain.strip_prefix("*.") {
                    if root_domain(domain) == Some(wildcard) {
                        set.by_root_domain.insert(wildcard.into(), i);
                    } else {
                        set.by_sub_domain.insert(wildcard.into(), i);
                    }
                }
            }
            set.names.push(entity.name.into());
        }
        set
    }

    /// The known entity of a URL: by its exact domain, then by its
    /// subdomains down to the root domain, then by the root domain.
    fn entity(&self, url: &str) -> Option<u32> {
        let (root, domain) = parse_domains(url)?;
        if let Some(&i) = self.by_domain.get(domain) {
            return Some(i);
        }
        let root_len = js_len(root);
        let mut sub = domain;
        while js_len(sub) > root_len {
            if let Some(&i) = self.by_sub_domain.get(sub) {
                return Some(i);
            }
            sub = sub.split_once('.').map_or("", |(_, rest)| rest);
        }
        self.by_root_domain.get(root).copied()
    }
}

/// A string's length in UTF-16 units, as JavaScript counts it.
fn js_len(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.encode_utf16().count()
    }
}

/// The root domain of a URL or origin (`third-party-web`'s
/// `getRootDomain`).
pub fn root_domain(url: &str) -> Option<&str> {
    parse_domains(url).map(|(root, _)| root)
}

/// The root domain and the domain of a URL, `None` when it has none (a
/// `data:` URL, one over 10,000 characters, or one without a domain).
fn parse_domains(url: &str) -> Option<(&str, &str)> {
    if url.starts_with("data:") || (url.len() > 10_000 && js_len(url) > 10_000) {
        return None;
    }
    let domain = domain_characters(url)
        .or_else(|| domain_in_url(url))
        .filter(|d| !d.is_empty())?;
    if is_ip(domain) {
        return Some((domain, domain));
    }
    Some((root_of_domain(domain).unwrap_or(domain), domain))
}

fn is_domain_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'-'
}

/// The leftmost match of `/(?:[a-z0-9.-]+\.[a-z0-9]+|localhost)/i`.
fn domain_characters(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !is_domain_char(b[i]) {
            i += 1;
            continue;
        }
        let run_end = (i..b.len()).find(|&j| !is_domain_char(b[j])).unwrap_or(b.len());
        // The first alternative, from the run's start: the greedy first
        // part gives back up to the last dot that an alphanumeric follows.
        let dot = (i + 1..run_end)
            .rev()
            .find(|&k| b[k] == b'.' && b.get(k + 1).is_some_and(u8::is_ascii_alphanumeric));
        if let Some(k) = dot {
            let end = (k + 1..b.len())
                .find(|&j| !b[j].is_ascii_alphanumeric())
                .unwrap_or(b.len());
            return Some(&s[i..end]);
        }
        // Where the first alternative fails at the run's start, it fails
        // at every later start in the run; `localhost` may still match.
        let run = &s[i..run_end];
        if let Some(at) = run.to_ascii_lowercase().find("localhost") {
            return Some(&s[i + at..i + at + "localhost".len()]);
        }
        i = run_end;
    }
    None
}

/// JavaScript's `\s`.
fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// The group of the leftmost match of `/:\/\/(\S*?)(:\d+)?(\/|$)/`.
fn domain_in_url(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(at) = s[from..].find("://") {
        let start = from + at + 3;
        let mut j = start;
        loop {
            if b.get(j) == Some(&b':') {
                let digits_end = (j + 1..b.len()).find(|&k| !b[k].is_ascii_digit()).unwrap_or(b.len());
                if digits_end > j + 1 && (digits_end == b.len() || b[digits_end] == b'/') {
                    return Some(&s[start..j]);
                }
            }
            if j == b.len() || b[j] == b'/' {
                return Some(&s[start..j]);
            }
            match s[j..].chars().next() {
                Some(c) if !is_js_space(c) => j += c.len_utf8(),
                _ => break,
            }
        }
        from += at + 1;
    }
    None
}

/// `/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/`.
fn is_ip(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The match of `/[^.]+\.([^.]+|(gov|com|co|ne)\.\w{2})$/i` in a domain:
/// its leftmost label such that what follows is one more label, or a
/// `gov`/`com`/`co`/`ne` label and a two-character one.
fn root_of_domain(domain: &str) -> Option<&str> {
    let label_starts = std::iter::once(0).chain(domain.match_indices('.').map(|(i, _)| i + 1));
    for start in label_starts {
        let rest = &domain[start..];
        let Some((label, tail)) = rest.split_once('.') else {
            continue;
        };
        if label.is_empty() {
            continue;
        }
        if !tail.is_empty() && !tail.contains('.') {
            return Some(rest);
        }
        if let Some((second, country)) = tail.split_once('.') {
            let second_ok = ["gov", "com", "co", "ne"]
                .iter()
                .any(|w| second.eq_ignore_ascii_case(w));
            let country_ok = country.len() == 2 && country.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if second_ok && country_ok {
                return Some(rest);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adding_a_run_at_once_is_adding_each_once() {
        let (a, b) = (Entity::Known(0), Entity::Known(1));
        let runs = [
            (
                a,
                vec![EntityEvent::Event(1), EntityEvent::Request(4), EntityEvent::Event(1)],
            ),
            (b, vec![EntityEvent::Event(2), EntityEvent::Event(1)]),
            // Every event mapped already: no list for the entity.
            (Entity::Known(2), vec![EntityEvent::Event(1), EntityEvent::Event(2)]),
            (
                a,
                vec![EntityEvent::Event(3), EntityEvent::Event(2), EntityEvent::Event(5)],
            ),
        ];
        let (mut each, mut at_once) = (EntityMappings::default(), EntityMappings::default());
        for (entity, events) in &runs {
            for &event in events {
                each.add_once(*entity, event);
            }
            at_once.add_each_once(*entity, events.iter().copied());
        }
        assert_eq!(each.events_by_entity, at_once.events_by_entity);
        let listed: Vec<(Entity, usize)> = at_once.events_by_entity.iter().map(|(e, l)| (*e, l.len())).collect();
        assert_eq!(listed, vec![(a, 4), (b, 1)]);
    }

    #[test]
    fn domains_are_found_as_third_party_web_finds_them() {
        assert_eq!(
            parse_domains("http://localhost:8080/"),
            Some(("localhost", "localhost"))
        );
        assert_eq!(
            parse_domains("https://fonts.googleapis.com/css2?family=A"),
            Some(("googleapis.com", "fonts.googleapis.com"))
        );
        assert_eq!(
            parse_domains("https://www.bbc.co.uk/x"),
            Some(("bbc.co.uk", "www.bbc.co.uk"))
        );
        assert_eq!(parse_domains("http://10.0.0.1:80/a"), Some(("10.0.0.1", "10.0.0.1")));
        assert_eq!(parse_domains("http://intranet/page"), Some(("intranet", "intranet")));
        assert_eq!(parse_domains("*.google.com"), Some(("google.com", ".google.com")));
        assert_eq!(parse_domains("data:image/png;base64,AAAA"), None);
        assert_eq!(parse_domains("about:blank"), None);
    }

    #[test]
    fn urls_map_to_known_or_made_up_entities() {
        let mut interner = Interner::new();
        let fonts = Entity::for_url("https://fonts.gstatic.com/s/a.woff2", &mut interner).unwrap();
        let css = Entity::for_url("https://fonts.googleapis.com/css2", &mut interner).unwrap();
        assert_eq!(fonts.name(&interner), "Google Fonts");
        assert_eq!(fonts, css);
        let local = Entity::for_url("http://localhost:8080/a.js", &mut interner).unwrap();
        assert_eq!(local, Entity::MadeUp(interner.intern("localhost")));
        assert_eq!(Entity::for_url("blob:null/1234", &mut interner), None);
        let ext = Entity::for_url("chrome-extension://abcdef/script.js", &mut interner).unwrap();
        assert_eq!(ext.name(&interner), "abcdef");
    }

    #[test]
    fn the_vendored_list_reads_whole() {
        let set = dataset();
        assert_eq!(set.names.len(), 2142);
        assert!(set.by_root_domain.len() > 100 && set.by_domain.len() > set.names.len());
    }
}
