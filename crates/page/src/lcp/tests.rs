//! The largest paint handlers and the LCP request lookup.

use super::*;

struct Requests(Vec<(f64, Sym)>);

impl RequestsByTime for Requests {
    fn request_count(&self) -> usize {
        self.0.len()
    }
    fn request_ts(&self, position: usize) -> Micros {
        Micros(self.0[position].0)
    }
    fn request_has_url(&self, position: usize, url: Sym) -> bool {
        self.0[position].1 == url
    }
}

#[test]
fn finds_the_first_request_for_the_image_in_its_window() {
    let (image, other) = (Sym(100), Sym(101));
    let requests = Requests(vec![
        (5.0, image),
        (10.0, other),
        (12.0, image),
        (15.0, image),
        (30.0, image),
    ]);
    let lcp = |navigation: u32, start: f64, end: f64| LcpImage {
        navigation_id: Some(Sym(navigation)),
        start: Micros(start),
        end: Micros(end),
        url: image,
    };
    let found = lcp_request_lookup(&[lcp(1, 10.0, 20.0), lcp(2, 16.0, 30.0), lcp(3, 0.0, 5.0)], &requests);
    assert_eq!(found.get(&Some(Sym(1))), Some(&2));
    // Requests from the paint on are too late.
    assert_eq!(found.get(&Some(Sym(2))), None);
    assert_eq!(found.get(&Some(Sym(3))), None);
}
