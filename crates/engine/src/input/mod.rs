//! The layers between the bytes of a file and the tokenizer's text: gzip
//! (told by its magic bytes, inflated while the text is decoded) and
//! UTF-16 (told by a byte order mark or by NULs between ASCII characters,
//! turned into UTF-8 as it streams). Each layer holds back the first few
//! bytes until it can tell what the input is.

pub(crate) mod gzip;
pub(crate) mod utf16;

use tracekit_events::{Context, ErrorKind, EventSink, LoadError, Tokenizer};

use gzip::{GzipDecoder, PushError};
use utf16::{Utf16Decoder, SNIFF_LEN};

/// The first two bytes of every gzip stream.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The byte layer: gzip or not.
pub(crate) enum Bytes {
    /// Fewer than two bytes seen: gzip or not is still unknown.
    Sniffing(Vec<u8>),
    /// The bytes are the text.
    Plain,
    /// The bytes are gzip: what it inflates to is the text.
    Gzip(Box<GzipDecoder>),
}

/// The text layer: UTF-8 or UTF-16.
pub(crate) enum Text {
    /// Fewer than [`SNIFF_LEN`] bytes seen: the encoding is still unknown.
    Sniffing(Vec<u8>),
    /// UTF-8, handed to the tokenizer as it is.
    Utf8,
    /// UTF-16, turned into UTF-8 on the way.
    Utf16(Box<Utf16Decoder>),
}

/// The whole chain from bytes to events.
pub(crate) struct Layers {
    pub bytes: Bytes,
    pub text: Text,
    pub tokenizer: Tokenizer,
}

impl Layers {
    pub(crate) fn new() -> Self {
        Layers {
            bytes: Bytes::Sniffing(Vec::new()),
            text: Text::Sniffing(Vec::new()),
            tokenizer: Tokenizer::new(),
        }
    }

    /// Takes the next bytes of the input.
    pub(crate) fn push(&mut self, bytes: &[u8], cx: &mut Context, sink: &mut impl EventSink) -> Result<(), LoadError> {
        if let Bytes::Sniffing(head) = &mut self.bytes {
            head.extend_from_slice(bytes);
            if head.len() < GZIP_MAGIC.len() {
                return Ok(());
            }
            let head = std::mem::take(head);
            self.bytes = if head.starts_with(&GZIP_MAGIC) {
                Bytes::Gzip(Box::default())
            } else {
                Bytes::Plain
            };
            return self.push(&head, cx, sink);
        }
        let Layers {
            bytes: layer,
            text,
            tokenizer,
        } = self;
        match layer {
            Bytes::Plain => push_text(text, tokenizer, bytes, cx, sink),
            Bytes::Gzip(decoder) => {
                let _span = tracing::info_span!("inflate").entered();
                decoder
                    .push(bytes, |inflated| push_text(text, tokenizer, inflated, cx, sink))
                    .map_err(|e| match e {
                        PushError::Gzip(e) => LoadError::new(ErrorKind::Gzip, e.to_string()),
                        PushError::Sink(e) => e,
                    })
            }
            Bytes::Sniffing(_) => Ok(()),
        }
    }

    /// Whether text read from the input can go straight to the tokenizer.
    pub(crate) fn is_plain_utf8(&self) -> bool {
        matches!((&self.bytes, &self.text), (Bytes::Plain, Text::Utf8))
    }

    /// Ends the input: flushes what the layers hold back, and adds their
    /// warnings (a cut gzip stream, a cut UTF-16 character).
    pub(crate) fn finish(
        mut self,
        cx: &mut Context,
        sink: &mut impl EventSink,
    ) -> Result<tracekit_events::Tokenized<'static>, LoadError> {
        if let Bytes::Sniffing(head) = &mut self.bytes {
            let head = std::mem::take(head);
            self.bytes = Bytes::Plain;
            self.push(&head, cx, sink)?;
        }
        if let Bytes::Gzip(decoder) = std::mem::replace(&mut self.bytes, Bytes::Plain) {
            let end = decoder
                .finish()
                .map_err(|e| LoadError::new(ErrorKind::Gzip, e.to_string()))?;
            if let Some(warning) = end.warning() {
                cx.diagnostics.warn(warning);
            }
        }
        if let Text::Sniffing(head) = &mut self.text {
            let head = std::mem::take(head);
            decide_encoding(&mut self.text, &head);
            push_text(&mut self.text, &mut self.tokenizer, &head, cx, sink)?;
        }
        if let Text::Utf16(decoder) = std::mem::replace(&mut self.text, Text::Utf8) {
            for warning in decoder.finish().warnings() {
                cx.diagnostics.warn(warning);
            }
        }
        self.tokenizer.finish(cx, sink)
    }
}

/// Sets the text layer from the first bytes of the text.
fn decide_encoding(text: &mut Text, head: &[u8]) {
    *text = match utf16::sniff(head) {
        Some(kind) => Text::Utf16(Box::new(Utf16Decoder::new(kind))),
        None => Text::Utf8,
    };
}

/// Takes the next bytes of text (after gzip).
fn push_text(
    text: &mut Text,
    tokenizer: &mut Tokenizer,
    bytes: &[u8],
    cx: &mut Context,
    sink: &mut impl EventSink,
) -> Result<(), LoadError> {
    match text {
        Text::Utf8 => tokenizer.push(bytes, cx, sink),
        Text::Utf16(decoder) => decoder.push(bytes, |utf8| tokenizer.push(utf8, cx, sink)),
        Text::Sniffing(head) => {
            head.extend_from_slice(bytes);
            if head.len() < SNIFF_LEN {
                return Ok(());
            }
            let head = std::mem::take(head);
            decide_encoding(text, &head);
            push_text(text, tokenizer, &head, cx, sink)
        }
    }
}
