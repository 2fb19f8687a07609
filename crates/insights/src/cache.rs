//! Cache: the static resources of the set (fonts, images, media, scripts,
//! stylesheets, served over the network with a cacheable status) whose
//! cache lifetime is short enough that a return visit would likely miss the
//! cache, and the bytes such a visit would fetch again.

use tracekit_engine::handlers::page::network::Header;
use tracekit_engine::handlers::page::{JsValue, NetworkRequest};
use tracekit_engine::support::dump::{Object, Value};
use tracekit_engine::Strings;

use crate::model::{Category, EventRef, Finding, Insight, RelatedEvents, State, Ui};
use crate::sets::Context;

/// DevTools' words for the insight.
pub static UI: Ui = Ui {
    key: "Cache",
    title: "Use efficient cache lifetimes",
    description: "A long cache lifetime can speed up repeat visits to your page. [Learn more about caching](https://developer.chrome.com/docs/performance/insights/cache).",
    docs: "https://developer.chrome.com/docs/performance/insights/cache",
    category: Category::All,
    strings: &[
        ("cacheTTL", "Cache TTL"),
        ("description", "A long cache lifetime can speed up repeat visits to your page. [Learn more about caching](https://developer.chrome.com/docs/performance/insights/cache)."),
        ("noRequestsToCache", "No requests with inefficient cache policies"),
        ("others", "{PH1} others"),
        ("requestColumn", "Request"),
        ("title", "Use efficient cache lifetimes"),
    ],
};

/// A resource whose chance of a cache hit on a return visit is above this
/// is cached well enough.
const HIT_PROBABILITY_ENOUGH: f64 = 0.925;

/// The age (hours) of a resource at a cache hit, at the 0th, 10th, ...
/// 100th percentile (Chrome's old UMA figures, as DevTools and Lighthouse
/// use them): a lifetime's chance of a hit is interpolated on it.
const HIT_AGE_DECILES_HOURS: [f64; 12] = [
    0.0,
    0.2,
    1.0,
    3.0,
    8.0,
    12.0,
    24.0,
    48.0,
    72.0,
    168.0,
    8760.0,
    f64::INFINITY,
];

/// The resource types worth caching.
const STATIC_TYPES: [&str; 5] = ["Font", "Image", "Media", "Script", "Stylesheet"];

/// Protocols of requests that do not go over the network.
const NON_NETWORK_PROTOCOLS: [&str; 6] = ["blob", "data", "intent", "file", "filesystem", "chrome-extension"];

/// What the insight found: the requests cached too briefly, the largest
/// (decoded) first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cache {
    /// The requests.
    pub requests: Vec<CachedTooBriefly>,
}

/// A request whose cache lifetime is too short.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedTooBriefly {
    /// The request, by index in
    /// [`NetworkRequests::requests`](tracekit_engine::NetworkRequests).
    pub request: usize,
    /// Its cache lifetime, seconds (0: none given).
    pub ttl: f64,
    /// The bytes a return visit would likely fetch again.
    pub wasted_bytes: f64,
}

/// Computes the insight.
pub fn generate(cx: &Context<'_>) -> Result<Insight, String> {
    let network = cx.data.network_requests();
    let strings = cx.analysis.strings();
    let now_ms = now_ms();
    let mut found: Vec<(CachedTooBriefly, f64)> = Vec::new();
    for (at, request) in network.requests.iter().enumerate() {
        if !cx.overlaps(request.ts, request.dur) || !request.response_headers.is_truthy() {
            continue;
        }
        if !is_cacheable(request, strings) {
            continue;
        }
        let Some(ttl) = lifetime_worth_reporting(&request.response_header_list(), now_ms) else {
            continue;
        };
        let hit = hit_probability(ttl);
        if hit > HIT_PROBABILITY_ENOUGH {
            continue;
        }
        let transfer = request.encoded_data_length.to_number(strings);
        let transfer = if transfer.is_nan() { 0.0 } else { transfer };
        let decoded = request.decoded_body_length.to_number(strings);
        found.push((
            CachedTooBriefly {
                request: at,
                ttl,
                wasted_bytes: (1.0 - hit) * transfer,
            },
            decoded,
        ));
    }
    // Largest decoded body first, then the shorter lifetime; a difference
    // that is not a number counts as a tie, as in a JavaScript sort.
    found.sort_by(|(a, a_size), (b, b_size)| {
        let by_size = b_size - a_size;
        if by_size != 0.0 && !by_size.is_nan() {
            return by_size.partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal);
        }
        (a.ttl - b.ttl).partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal)
    });
    let requests: Vec<CachedTooBriefly> = found.into_iter().map(|(r, _)| r).collect();
    // The bytes summed in the order the requests were met (by time).
    let mut in_time_order: Vec<&CachedTooBriefly> = requests.iter().collect();
    in_time_order.sort_by_key(|r| r.request);
    let wasted: f64 = in_time_order.iter().fold(0.0, |sum, r| sum + r.wasted_bytes);
    let by_request: Vec<(usize, f64)> = in_time_order.iter().map(|r| (r.request, r.wasted_bytes)).collect();
    let state = if requests.is_empty() { State::Pass } else { State::Fail };
    let related = requests.iter().map(|r| EventRef::Request(r.request)).collect();
    let mut insight = Insight::new(state, Finding::Cache(Cache { requests }));
    insight.related_events = Some(RelatedEvents::List(related));
    insight.wasted_bytes = Some(wasted);
    insight.metric_savings = crate::estimates::wasted_bytes_savings(cx, by_request)?;
    Ok(insight)
}

/// The clock, ms since the epoch: DevTools measures an `Expires` header
/// from the moment it runs.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// WebAssembly without a host system has no clock (asking panics): an
/// `Expires` lifetime is then not a number, and skipped as DevTools skips
/// one; only a date within the next 30 days would have counted.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn now_ms() -> f64 {
    f64::NAN
}

/// Whether caching a request makes sense: over the network, with a status
/// a cache keeps (200, 203, 206) and a static resource type.
fn is_cacheable(request: &NetworkRequest, strings: &Strings) -> bool {
    let text = |v: &JsValue| v.as_sym().map(|s| strings.resolve(s));
    if text(&request.protocol).is_some_and(|p| NON_NETWORK_PROTOCOLS.contains(&p)) {
        return false;
    }
    let status_ok = request
        .status_code
        .as_f64()
        .is_some_and(|s| s == 200.0 || s == 203.0 || s == 206.0);
    status_ok && text(&request.resource_type).is_some_and(|t| STATIC_TYPES.contains(&t))
}

/// The cache lifetime (s) of a response with these headers when it is
/// short enough to report: `None` when caching is turned off, the lifetime
/// is not positive, or it is 30 days or more. A response that gives none
/// has a lifetime of 0.
fn lifetime_worth_reporting(headers: &[Header], now_ms: f64) -> Option<f64> {
    let combined = combined_headers(headers);
    let cache_control = combined.get("cache-control").filter(|v| !v.is_empty());
    let directives = cache_control.map(|v| CacheControl::parse(v));
    let pragma_no_cache = combined.get("pragma").is_some_and(|p| p.contains("no-cache"));
    if cache_control.is_none() && pragma_no_cache {
        return None;
    }
    if directives.as_ref().is_some_and(CacheControl::disables_caching) {
        return None;
    }
    let ttl = match directives.and_then(|d| d.max_age) {
        Some(max_age) => Some(max_age),
        None => expires_lifetime(headers, now_ms),
    };
    if let Some(ttl) = ttl {
        if !ttl.is_finite() || ttl <= 0.0 {
            return None;
        }
    }
    let ttl = ttl.unwrap_or(0.0);
    (ttl / 86400.0 < 30.0).then_some(ttl)
}

/// The headers by lowercased name, the values of a repeated name joined
/// with `, ` (a value replaces an empty one).
fn combined_headers(headers: &[Header]) -> ahash::AHashMap<String, String> {
    let mut combined: ahash::AHashMap<String, String> = ahash::AHashMap::new();
    for h in headers {
        let slot = combined.entry(h.name.to_lowercase()).or_default();
        if slot.is_empty() {
            slot.clone_from(&h.value);
        } else {
            slot.push_str(", ");
            slot.push_str(&h.value);
        }
    }
    combined
}

/// The lifetime an `expires` header gives (the name in lowercase, as
/// DevTools looks it up), seconds from now rounded up; 0 for a date that
/// does not parse.
fn expires_lifetime(headers: &[Header], now_ms: f64) -> Option<f64> {
    let value = headers.iter().find(|h| h.name == "expires")?.value.as_str();
    if value.is_empty() {
        return None;
    }
    Some(match parse_http_date_ms(value) {
        Some(at) if at != 0.0 => ((at - now_ms) / 1000.0).ceil(),
        _ => 0.0,
    })
}

/// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`, its RFC 850 form with
/// `-` between day, month and a two-digit year, or C's `asctime` form),
/// ms since the epoch, as JavaScript's `Date` reads it. Other forms give
/// `None` (then treated as already expired): a date DevTools would read
/// otherwise matters only when it falls within the next 30 days.
fn parse_http_date_ms(text: &str) -> Option<f64> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let words: Vec<&str> = text.split([' ', ',', '-']).filter(|w| !w.is_empty()).collect();
    // The month's number, from 1, by its first three letters.
    let month_of = |w: &str| {
        let head = w.get(..3)?;
        (1u32..)
            .zip(MONTHS)
            .find_map(|(n, m)| head.eq_ignore_ascii_case(m).then_some(n))
    };
    // Skip the weekday; then `day month year time` or `month day time year`.
    let rest = words.get(1..)?;
    let (day, month, year, time) = match rest {
        [day, month, year, time, ..] if month_of(month).is_some() => (*day, month_of(month)?, *year, *time),
        [month, day, time, year, ..] => (*day, month_of(month)?, *year, *time),
        _ => return None,
    };
    let day: u32 = day.parse().ok()?;
    let mut year: i64 = year.parse().ok()?;
    if year < 50 {
        year += 2000;
    } else if year < 100 {
        year += 1900;
    }
    let hms: Vec<u32> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, s] = hms[..] else {
        return None;
    };
    if !(1..=31).contains(&day) || h > 24 || m > 59 || s > 59 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 86400 + i64::from(h * 3600 + m * 60 + s)) * 1000) as f64)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((month + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `Cache-Control` directives the insight reads.
#[derive(Debug, Default)]
struct CacheControl {
    max_age: Option<f64>,
    turns_off: bool,
}

impl CacheControl {
    /// Reads the directives (case-sensitive names, as DevTools).
    fn parse(header: &str) -> CacheControl {
        let mut parsed = CacheControl::default();
        for directive in header.split(',') {
            let mut parts = directive.trim().split('=').map(str::trim);
            let key = parts.next().unwrap_or("");
            let value = parts.next();
            match key {
                "max-age" => {
                    if let Some(age) = value.and_then(parse_int) {
                        parsed.max_age = Some(age);
                    }
                }
                "no-cache" | "no-store" | "must-revalidate" | "private" => parsed.turns_off = true,
                _ => {}
            }
        }
        parsed
    }

    fn disables_caching(&self) -> bool {
        self.turns_off
    }
}

/// JavaScript's `parseInt(text, 10)`: the leading decimal integer, after
/// white space and a sign; `None` for `NaN`.
fn parse_int(text: &str) -> Option<f64> {
    let text = text.trim_start();
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let value: f64 = rest[..digits].parse().ok()?;
    Some(if negative { -value } else { value })
}

/// The chance that a return visit comes within `ttl` seconds, interpolated
/// on [`HIT_AGE_DECILES_HOURS`].
fn hit_probability(ttl: f64) -> f64 {
    let hours = ttl / 3600.0;
    let Some(upper) = HIT_AGE_DECILES_HOURS.iter().position(|&d| d >= hours) else {
        return 0.0;
    };
    if upper == HIT_AGE_DECILES_HOURS.len() - 1 {
        return 1.0;
    }
    if upper == 0 {
        return 0.0;
    }
    let (x0, x1) = (HIT_AGE_DECILES_HOURS[upper - 1], HIT_AGE_DECILES_HOURS[upper]);
    let (y0, y1) = ((upper - 1) as f64 / 10.0, upper as f64 / 10.0);
    y0 + (hours - x0) * ((y1 - y0) / (x1 - x0))
}

impl Cache {
    /// Its members of the insight's model.
    pub(crate) fn dump(&self, model: &mut Object, cx: &mut crate::DumpCx<'_, '_>) {
        let requests = self
            .requests
            .iter()
            .map(|r| {
                Object::new()
                    .with("request", cx.event(EventRef::Request(r.request)))
                    .with("ttl", Value::Num(r.ttl))
                    .with("wastedBytes", Value::Num(r.wasted_bytes))
                    .into()
            })
            .collect();
        model.push("requests", Value::Array(requests));
    }

    /// What it found, in words.
    pub(crate) fn summary(&self, cx: &crate::TextCx<'_>) -> Vec<String> {
        if self.requests.is_empty() {
            return vec![UI.string("noRequestsToCache").to_owned()];
        }
        let strings = cx.analysis.strings();
        let requests = &cx.data.network_requests().requests;
        self.requests
            .iter()
            .map(|r| {
                format!(
                    "{}: cache TTL {} s, {:.1} kB likely fetched again",
                    strings.resolve(requests[r.request].url),
                    r.ttl,
                    r.wasted_bytes / 1000.0
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{hit_probability, lifetime_worth_reporting, parse_int};
    use crate::test_trace::{navigation_set, sets, trace};
    use crate::{Finding, Insight, State};
    use tracekit_engine::handlers::page::network::Header;

    fn headers(list: &[(&str, &str)]) -> Vec<Header> {
        list.iter()
            .map(|(n, v)| Header {
                name: (*n).to_owned(),
                value: (*v).to_owned(),
            })
            .collect()
    }

    #[test]
    fn the_lifetime_comes_from_max_age_and_caching_can_be_turned_off() {
        let now = 1.0e12;
        let ttl = |list: &[(&str, &str)]| lifetime_worth_reporting(&headers(list), now);
        assert_eq!(ttl(&[("Cache-Control", "public, max-age=3600")]), Some(3600.0));
        assert_eq!(ttl(&[]), Some(0.0));
        assert_eq!(ttl(&[("cache-control", "max-age=0")]), None);
        assert_eq!(ttl(&[("cache-control", "max-age=31536000")]), None);
        assert_eq!(ttl(&[("cache-control", "no-cache, max-age=60")]), None);
        assert_eq!(ttl(&[("pragma", "no-cache")]), None);
        assert_eq!(ttl(&[("expires", "Thu, 01 Jan 1970 00:00:00 GMT")]), None);
        assert_eq!(ttl(&[("expires", "not a date")]), None);
        assert_eq!(parse_int(" 12abc"), Some(12.0));
        assert_eq!(
            super::parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777_000.0)
        );
        assert_eq!(
            super::parse_http_date_ms("Sun Nov  6 08:49:37 1994"),
            Some(784_111_777_000.0)
        );
        // `now` is 2001-09-09T01:46:40Z.
        assert_eq!(ttl(&[("expires", "Mon, 10 Sep 2001 01:46:40 GMT")]), Some(86_400.0));
        assert_eq!(parse_int("x"), None);
    }

    #[test]
    fn the_hit_probability_is_interpolated_on_the_deciles() {
        assert_eq!(hit_probability(0.0), 0.0);
        assert!((hit_probability(2.0 * 3600.0) - 0.25).abs() < 1e-12);
        assert_eq!(hit_probability(1.0e12), 1.0);
    }

    fn image(id: &str, ts: u32, headers: &str) -> String {
        format!(
            r#"{{"name":"ResourceSendRequest","ph":"I","pid":2,"tid":3,"ts":{ts},"args":{{"data":{{"requestId":"{id}",
    "url":"https://a.test/{id}.png","priority":"Low","requestMethod":"GET","frame":"F1","resourceType":"Image"}}}}}},
  {{"name":"ResourceReceiveResponse","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}",
    "fromCache":false,"mimeType":"image/png","statusCode":200,"protocol":"h2","headers":{headers}}}}}}},
  {{"name":"ResourceFinish","ph":"I","pid":2,"tid":3,"ts":{},"args":{{"data":{{"requestId":"{id}",
    "encodedDataLength":1000,"decodedBodyLength":900,"finishTime":0.5}}}}}}"#,
            ts + 100,
            ts + 200
        )
    }

    fn cache(text: &str) -> Insight {
        let sets = sets(text);
        let insight = navigation_set(&sets)
            .computed()
            .find(|i| matches!(i.finding, Finding::Cache(_)))
            .unwrap()
            .clone();
        insight
    }

    #[test]
    fn a_briefly_cached_image_fails_and_a_long_cached_one_passes() {
        let short = image("R1", 5000, r#"[{"name":"Cache-Control","value":"max-age=7200"}]"#);
        let insight = cache(&trace(&short));
        assert_eq!(insight.state, State::Fail);
        let Finding::Cache(f) = &insight.finding else {
            unreachable!()
        };
        assert_eq!(f.requests.len(), 1);
        assert_eq!(f.requests[0].ttl, 7200.0);
        assert!((f.requests[0].wasted_bytes - 750.0).abs() < 1e-9);
        assert_eq!(insight.wasted_bytes, Some(f.requests[0].wasted_bytes));

        let long = image("R2", 5000, r#"[{"name":"Cache-Control","value":"max-age=31536000"}]"#);
        let insight = cache(&trace(&long));
        assert_eq!(insight.state, State::Pass);
        assert_eq!(insight.wasted_bytes, Some(0.0));
    }
}
