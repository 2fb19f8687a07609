//! The layers between the bytes of a file and the tokenizer's text: gzip
//! (told by its magic bytes, inflated while the text is decoded) and
//! UTF-16 (told by a byte order mark or by NULs between ASCII characters,
//! turned into UTF-8 as it streams). Each layer holds back the first few
//! bytes until it can tell what the input is.

pub(crate) mod gzip;
pub(crate) mod utf16;

use tracekit_events::{Context, ErrorKind, EventSink, LoadError, Parallelism, Tokenizer, BLOCK};

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
    /// Gzip on several cores: text inflated from the input so far that the
    /// text layer has not taken yet (see [`push_gzip_overlapped`]).
    inflated_ahead: Vec<u8>,
}

impl Layers {
    pub(crate) fn new() -> Self {
        Layers {
            bytes: Bytes::Sniffing(Vec::new()),
            text: Text::Sniffing(Vec::new()),
            tokenizer: Tokenizer::new(),
            inflated_ahead: Vec::new(),
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
            inflated_ahead,
        } = self;
        match layer {
            Bytes::Plain => push_text(text, tokenizer, bytes, cx, sink),
            Bytes::Gzip(decoder) if cx.options.parallelism == Parallelism::Rayon => {
                push_gzip_overlapped(decoder, inflated_ahead, text, tokenizer, bytes, cx, sink)
            }
            Bytes::Gzip(decoder) => {
                let _span = tracing::info_span!("inflate").entered();
                match decoder.push(bytes, |inflated| push_text(text, tokenizer, inflated, cx, sink)) {
                    Ok(()) => Ok(()),
                    Err(PushError::Sink(e)) => Err(e),
                    Err(PushError::Gzip(e)) => Err(gzip_fault(e, tokenizer, cx, sink)),
                }
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
            let ahead = std::mem::take(&mut self.inflated_ahead);
            push_text(&mut self.text, &mut self.tokenizer, &ahead, cx, sink)?;
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

/// The error of a corrupt gzip stream, once the text inflated before the
/// fault is decoded: a fault of that text comes first in the input and is
/// the one reported, whatever pieces the text came in (so the same on one
/// core and on several).
fn gzip_fault(e: gzip::GzipError, tokenizer: &mut Tokenizer, cx: &mut Context, sink: &mut impl EventSink) -> LoadError {
    match tokenizer.decode_held(cx, sink) {
        Err(earlier) => earlier,
        Ok(()) => LoadError::new(ErrorKind::Gzip, e.to_string()),
    }
}

/// Compressed input is inflated this much at a time, so that inflating
/// stops at most this much input past a block of text.
const INFLATE_PIECE: usize = 16 << 10;

/// Gzip on two cores: the next compressed bytes are inflated while the text
/// inflated before them is decoded, so that inflation no longer runs with
/// the other core idle. The text layer gets the same text, in the same
/// order, as on the sequential path, one step later; `ahead` holds what is
/// inflated and not yet taken (at most about a block: inflation stops once
/// it has a block of text). A corrupt stream is an error after the text
/// inflated before the fault has been decoded, as on the sequential path,
/// so that an earlier fault of the text is the one reported.
fn push_gzip_overlapped(
    decoder: &mut GzipDecoder,
    ahead: &mut Vec<u8>,
    text: &mut Text,
    tokenizer: &mut Tokenizer,
    mut compressed: &[u8],
    cx: &mut Context,
    sink: &mut impl EventSink,
) -> Result<(), LoadError> {
    let caller = tracing::Span::current();
    let mut next = Vec::new();
    while !compressed.is_empty() {
        let behind = std::mem::take(ahead);
        next.clear();
        let (decoded, (used, inflated)) = rayon::join(
            || push_text(text, tokenizer, &behind, cx, sink),
            || {
                let _span = tracing::info_span!(parent: &caller, "inflate").entered();
                let mut used = 0;
                while next.len() < BLOCK && used < compressed.len() {
                    let piece = &compressed[used..compressed.len().min(used + INFLATE_PIECE)];
                    used += piece.len();
                    let pushed = decoder.push(piece, |out| {
                        next.extend_from_slice(out);
                        Ok::<(), std::convert::Infallible>(())
                    });
                    if let Err(PushError::Gzip(e)) = pushed {
                        return (used, Err(e));
                    }
                }
                (used, Ok(()))
            },
        );
        decoded?;
        compressed = &compressed[used..];
        // `behind`'s allocation takes the next round's inflation.
        *ahead = std::mem::replace(&mut next, behind);
        if let Err(e) = inflated {
            let before_fault = std::mem::take(ahead);
            push_text(text, tokenizer, &before_fault, cx, sink)?;
            return Err(gzip_fault(e, tokenizer, cx, sink));
        }
    }
    Ok(())
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
