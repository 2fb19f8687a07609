//! Reading an input (a file, or standard input) in pieces into the
//! library's loader, with a progress bar for large ones, and printing the
//! warnings of a load.

use std::fmt;
use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};

use tracekit::AnalyzeOptions;

use crate::error::CliError;

/// An input: a file, or standard input (`-`).
pub struct Input {
    /// `None` for standard input.
    pub path: Option<PathBuf>,
}

impl Input {
    pub fn new(path: &Path) -> Input {
        Input {
            path: (path.as_os_str() != "-").then(|| path.to_owned()),
        }
    }

    /// How messages name the input.
    pub fn name(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => "<stdin>".to_owned(),
        }
    }
}

/// Why an input could not be loaded; [`CliError::Load`] names the input.
#[derive(Debug)]
pub enum InputError {
    /// Opening the file, or reading its metadata.
    Open(io::Error),
    IsDirectory,
    StdinIsTerminal,
    /// Reading the first bytes (those that tell gzip).
    Read(io::Error),
    /// The loader's error, reading errors past the first bytes included.
    Load(tracekit::LoadError),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Open(e) => write!(f, "{e}"),
            InputError::IsDirectory => f.write_str("is a directory"),
            InputError::StdinIsTerminal => f.write_str("standard input is a terminal: give a file, or pipe a trace in"),
            InputError::Read(e) => write!(f, "reading the input: {e}"),
            InputError::Load(e) => write!(f, "{e}{}", load_hint(e.kind())),
        }
    }
}

/// What the command's user can do about a load error of this kind, after
/// the library's message (which says what, not which flag): empty when
/// nothing.
pub fn load_hint(kind: tracekit::ErrorKind) -> &'static str {
    match kind {
        tracekit::ErrorKind::TooManyNodes => "; raise the limit with --max-nodes (about 100 bytes of memory each)",
        _ => "",
    }
}

/// Gzip's magic bytes.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The progress bar is shown for inputs at least this large: plain text
/// loads at several hundred MB/s, gzip about ten times slower per byte
/// read (the bar counts the bytes read, compressed or not).
fn progress_threshold(gzip: bool) -> u64 {
    if gzip {
        8 << 20
    } else {
        64 << 20
    }
}

/// A progress bar on stderr, for large inputs when stderr is a terminal.
/// The size of a file is known up front; standard input gets a spinner
/// once it has been read past the threshold.
struct Progress {
    enabled: bool,
    threshold: u64,
    read: u64,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(enabled: bool, size: Option<u64>, gzip: bool) -> Progress {
        let threshold = progress_threshold(gzip);
        let mut progress = Progress {
            enabled: enabled && io::stderr().is_terminal(),
            threshold,
            read: 0,
            bar: None,
        };
        if let Some(size) = size {
            if progress.enabled && size >= threshold {
                let bar = indicatif::ProgressBar::new(size);
                bar.set_style(
                    indicatif::ProgressStyle::with_template("{spinner} loading {bytes}/{total_bytes} {wide_bar} {eta}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                progress.bar = Some(bar);
            }
            progress.enabled = false;
        }
        progress
    }

    fn add(&mut self, n: usize) {
        self.read += n as u64;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        } else if self.enabled && self.read >= self.threshold {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} loading: {bytes} read")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            bar.set_position(self.read);
            self.bar = Some(bar);
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// What was read of an input.
pub struct Loaded {
    pub analysis: tracekit::Analysis,
    /// Bytes read (compressed, for gzip).
    pub bytes: u64,
    pub gzip: bool,
}

/// Opens the input: its reader, and its size when it is a file.
fn open(input: &Input) -> Result<(Box<dyn Read>, Option<u64>), InputError> {
    match &input.path {
        Some(path) => {
            let file = File::open(path).map_err(InputError::Open)?;
            let meta = file.metadata().map_err(InputError::Open)?;
            if meta.is_dir() {
                return Err(InputError::IsDirectory);
            }
            Ok((Box::new(file), meta.is_file().then_some(meta.len())))
        }
        None => {
            let stdin = io::stdin();
            if stdin.is_terminal() {
                return Err(InputError::StdinIsTerminal);
            }
            Ok((Box::new(stdin.lock()), None))
        }
    }
}

/// Reads the input in pieces and feeds them to the loader, with a progress
/// bar on stderr when it is a terminal and the input is large.
pub fn load(input: &Input, options: &AnalyzeOptions, quiet: bool) -> Result<Loaded, InputError> {
    let span = tracing::info_span!("load", json_bytes = tracing::field::Empty);
    let _entered = span.enter();
    let (mut reader, size) = open(input)?;
    // The first two bytes tell gzip, which sets the progress bar's threshold.
    let mut head = Vec::with_capacity(2);
    reader
        .by_ref()
        .take(2)
        .read_to_end(&mut head)
        .map_err(InputError::Read)?;
    let gzip = head.starts_with(&GZIP_MAGIC);
    let mut progress = Progress::new(!quiet, size, gzip);
    let mut loader = tracekit::Loader::new(*options);
    loader.push(&head).map_err(InputError::Load)?;
    progress.add(head.len());
    let read = if gzip {
        push_in_pieces(&mut loader, &mut reader, &mut progress)
    } else {
        // Plain text is read straight into the loader's buffer.
        loader.read_from(&mut reader, |n| progress.add(n))
    };
    let bytes = progress.read;
    progress.finish();
    read.map_err(InputError::Load)?;
    let analysis = loader.finish().map_err(InputError::Load)?;
    span.record("json_bytes", analysis.input_bytes() as u64);
    Ok(Loaded { analysis, bytes, gzip })
}

/// Pushes compressed input a MB at a time, so that the bar moves as it is
/// inflated (the loader's own pieces are of 8 MB).
fn push_in_pieces(
    loader: &mut tracekit::Loader,
    reader: &mut dyn Read,
    progress: &mut Progress,
) -> Result<(), tracekit::LoadError> {
    let mut piece = vec![0u8; 1 << 20];
    loop {
        match reader.read(&mut piece) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                loader.push(&piece[..n])?;
                progress.add(n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(tracekit::LoadError::new(
                    tracekit::ErrorKind::Io,
                    format!("reading the input: {e}"),
                ))
            }
        }
    }
}

/// Loads the one input of a command and prints its warnings; an error
/// names the input.
pub fn load_one(trace: &Path, options: &AnalyzeOptions, quiet: bool) -> Result<(Input, tracekit::Analysis), CliError> {
    let input = Input::new(trace);
    let analysis = load(&input, options, quiet)
        .map_err(|error| CliError::Load {
            file: input.name(),
            error,
        })?
        .analysis;
    print_warnings(&input, &analysis, quiet);
    Ok((input, analysis))
}

/// Prints the warnings of a load, each once, unless `quiet`.
pub fn print_warnings(input: &Input, analysis: &tracekit::Analysis, quiet: bool) {
    if quiet {
        return;
    }
    for warning in analysis.diagnostics().warnings() {
        eprintln!("tracekit: warning: {}: {warning}", input.name());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20 MB gzip (some 300 MB of JSON) gets a bar; 20 MB of JSON loads
    /// too fast to need one.
    #[test]
    fn progress_threshold_by_kind() {
        assert!(20 << 20 >= progress_threshold(true));
        assert!(20 << 20 < progress_threshold(false));
    }
}
