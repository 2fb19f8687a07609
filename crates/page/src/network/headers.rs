//! A request's response headers read from the raw `responseHeaders` of
//! its `ResourceReceiveResponse` (kept as JSON text), for the insights
//! that look at them (compression, charset, caching).

use serde::Deserialize;

use super::NetworkRequest;
use crate::value::JsValue;

/// One response header, as the trace lists it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Header {
    /// Its name, as sent (any case).
    pub name: String,
    /// Its value.
    pub value: String,
}

impl NetworkRequest {
    /// The response headers in the trace's order; empty when the request
    /// has none, or when they are not a list of `{name, value}` strings
    /// (where DevTools would throw).
    pub fn response_header_list(&self) -> Vec<Header> {
        match &self.response_headers {
            JsValue::Raw(text) => serde_json::from_str(text).unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Header;

    #[test]
    fn a_list_of_headers_is_read_and_anything_else_is_none() {
        let read = |text: &str| serde_json::from_str::<Vec<Header>>(text).unwrap_or_default();
        let headers = read(r#"[{"name":"Content-Type","value":"text/html"},{"name":"x","value":"y"}]"#);
        assert_eq!(headers.len(), 2);
        assert_eq!(headers[0].name, "Content-Type");
        assert_eq!(headers[0].value, "text/html");
        assert!(read(r#"[{"name":1,"value":"y"}]"#).is_empty());
    }
}
