//! The colours of the panel: DevTools' string hash and the colour
//! generators it feeds (a script's colour, a generic trace's entry, a
//! timing's or an interaction's), and the extensibility API's palette.

/// DevTools' `Platform.StringUtilities.hashCode`: a hash of the string's
/// UTF-16 code units, computed in doubles as JavaScript does (products
/// past 2^53 round), so that colours come out as the panel's.
pub fn devtools_hash_code(s: &str) -> u32 {
    if s.is_empty() {
        return 0;
    }
    // A prime, 2^32 - 5, and two 32-bit constants of DevTools' hash.
    let p = 4_294_967_291.0_f64;
    let z = f64::from(0x5033_d967_u32);
    let z2 = f64::from(0x59d2_f15d_u32);
    let (mut sum, mut zi) = (0.0_f64, 1.0_f64);
    for unit in s.encode_utf16() {
        let xi = f64::from(unit) * z2;
        sum = (sum + zi * xi) % p;
        zi = (zi * z) % p;
    }
    sum = (sum + zi * (p - 1.0)) % p;
    // `Math.abs(s | 0)`: the low 32 bits as a signed integer (`sum` is a
    // whole number below 2^32), made positive.
    #[allow(clippy::cast_possible_truncation)] // 0 <= sum < 2^32: exact
    let low = sum as u32;
    // The bits as signed, then made positive: 0 to 2^31.
    #[allow(clippy::cast_possible_wrap)]
    let signed = low as i32;
    signed.unsigned_abs()
}

/// The panel's colour for the JS calls of a script: its colour generator
/// (`Common.Color.Generator` with hues 30 to 330, saturations 50, 65 or
/// 80 %, lightness 85 %) applied to the script's URL; `#f2ecdc` for calls
/// without a URL.
pub fn script_color(url: &str) -> String {
    if url.is_empty() {
        return "#f2ecdc".to_owned();
    }
    let hash = devtools_hash_code(url);
    // `hash >> 8` is a shift of the hash as a signed 32-bit integer.
    #[allow(clippy::cast_possible_wrap)] // JavaScript's ToInt32
    let signed = hash as i32;
    let hue = in_space(i64::from(hash), 30.0, 330.0, 300);
    let saturation = in_space(i64::from(signed >> 8), 50.0, 80.0, 3);
    format!("hsl({hue}deg {saturation}% 85%)")
}

/// The colour generator's `indexToValueInSpace`, in JavaScript's
/// arithmetic: `index % count` keeps the sign of index.
pub(super) fn in_space(index: i64, min: f64, max: f64, count: i32) -> f64 {
    // |index % count| < count: exact as an i32, and as a double.
    let index = i32::try_from(index % i64::from(count)).unwrap_or(0);
    min + (f64::from(index) / f64::from(count - 1) * (max - min)).floor()
}

/// The panel's colour for an entry of a generic trace (one not recorded
/// by Chrome's DevTools): made from its name.
pub(super) fn generic_color(name: &str) -> String {
    if name.is_empty() {
        return "#ccc".to_owned();
    }
    format!("hsl({}, 40%, 70%)", devtools_hash_code(name) % 300 + 30)
}

/// The panel's colour for an extension entry or marker of the colour
/// `name` (`primary`, `secondary-light`, `error`...: the extensibility
/// API's palette, in the light theme); an unknown or missing name is
/// `primary`'s.
pub fn extension_color(name: Option<&str>) -> &'static str {
    match name {
        // --ref-palette-blue80, blue60
        Some("primary-light") => "#a8c7fa",
        Some("primary-dark") => "#4c8df6",
        // --ref-palette-purple80, purple90, purple70
        Some("secondary") => "#e2b6ff",
        Some("secondary-light") => "#f3daff",
        Some("secondary-dark") => "#d190ff",
        // --ref-palette-green70, green80, green60
        Some("tertiary") => "#37be5f",
        Some("tertiary-light") => "#6dd58c",
        Some("tertiary-dark") => "#1ea446",
        // --ref-palette-yellow70
        Some("warning") => "#facc15",
        // --ref-palette-error60
        Some("error") => "#e46962",
        // primary: --ref-palette-blue70
        _ => "#7cacf8",
    }
}

/// The panel's colour for a timing or an interaction: the colour generator
/// of its timings and interactions tracks (hues 30 to 55, saturations 70
/// to 100 % in 6 steps, lightness 50 %, alpha 0.7) applied to `id` (a
/// timing's name; an interaction's title and id).
pub fn timing_color(id: &str) -> String {
    let hash = devtools_hash_code(id);
    #[allow(clippy::cast_possible_wrap)] // JavaScript's ToInt32
    let signed = hash as i32;
    let hue = in_space(i64::from(hash), 30.0, 55.0, 25);
    let saturation = in_space(i64::from(signed >> 8), 70.0, 100.0, 6);
    format!("hsl({hue}deg {saturation}% 50% / 70%)")
}
