//! The home of tracekit's criterion benchmarks (`benches/`): `cargo bench
//! -p tracekit-benches`, or `cargo xtask bench --micro`; and the one input
//! the whole-engine benchmarks share.

use std::io::Read;
use std::path::Path;

/// `fixtures/traces/kitchen-sink.json.gz`, decompressed: the real trace
/// the whole-engine benchmarks load.
pub fn kitchen_sink() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/traces/kitchen-sink.json.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(file)
        .read_to_end(&mut bytes)
        .expect("the fixture is gzipped");
    bytes
}
