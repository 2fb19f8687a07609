//! The query's checks: its values, and its threads against an analysis.

mod threads {
    use super::super::*;

    fn analysis() -> Analysis {
        let trace = br#"[
{"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
{"name":"thread_name","ph":"M","pid":1,"tid":11,"args":{"name":"Compositor"}},
{"name":"thread_name","ph":"M","pid":1,"tid":12,"args":{"name":"CompositorTileWorker"}},
{"name":"RunTask","ph":"X","pid":1,"tid":10,"ts":10,"dur":5},
{"name":"RunTask","ph":"X","pid":1,"tid":11,"ts":10,"dur":5},
{"name":"RunTask","ph":"X","pid":1,"tid":12,"ts":10,"dur":5}]"#;
        crate::analyze_bytes(trace, &crate::AnalyzeOptions::default()).unwrap()
    }

    fn tids(found: Result<Vec<ThreadRef>, QueryError>) -> Vec<String> {
        found.unwrap().into_iter().map(|t| t.tid_text).collect()
    }

    #[test]
    fn thread_queries() {
        let a = analysis();
        // An exact name wins over the names it is part of.
        assert_eq!(tids(find_threads(&a, "compositor")), ["11"]);
        assert_eq!(tids(find_threads(&a, "tile")), ["12"]);
        assert_eq!(tids(find_threads(&a, "12")), ["12"]);
        assert_eq!(
            find_threads(&a, "comp").unwrap_err().to_string(),
            "'comp' matches threads of several names: Compositor (tid 11), CompositorTileWorker (tid 12); give the whole name, the tid or PID:TID"
        );
        let none = Query::new().with_thread("gpu").unwrap();
        assert_eq!(
            none.validate(&a).unwrap_err().to_string(),
            "no thread matches 'gpu'; threads: CrRendererMain (tid 10), Compositor (tid 11), CompositorTileWorker (tid 12)"
        );
        // The formats keep no thread for a query that matches none.
        assert!(none.kept_threads(&a) == Some(Vec::new()));
        // PID:TID names one thread.
        assert_eq!(tids(find_threads(&a, "1:11")), ["11"]);
    }
}

mod values {
    use super::super::*;

    #[test]
    fn windows_are_read_as_the_cli_reads_them() {
        let window = |start, end| Window::new(Millis(start), Millis(end));
        assert_eq!(Window::parse("1..2"), window(1.0, 2.0));
        assert_eq!(Window::parse(" 1 .. "), window(1.0, f64::INFINITY));
        assert_eq!(Window::parse("..-2"), window(f64::NEG_INFINITY, -2.0));
        // Units: a plain number is ms.
        assert_eq!(Window::parse("1.2s..2000ms"), window(1200.0, 2000.0));
        assert_eq!(Window::parse("500us.."), window(0.5, f64::INFINITY));
        assert_eq!(
            Window::parse("-1..2").unwrap_err().to_string(),
            "START (-1) is before the trace's start: times count from it, so START is 0 or more"
        );
        assert_eq!(
            Window::parse("1x..2").unwrap_err().to_string(),
            "not a number of milliseconds: '1x'"
        );
        assert_eq!(
            Window::parse("1..inf").unwrap_err().to_string(),
            "not a number of milliseconds: 'inf'"
        );
        assert_eq!(
            Window::parse("600..500").unwrap_err().to_string(),
            "END (500) is before START (600)"
        );
        for text in ["abc", "..", "5"] {
            assert_eq!(Window::parse(text), Err(QueryError::WindowSyntax));
        }
        assert_eq!(
            window(3.0, 2.0).unwrap_err().to_string(),
            "the end (2) is before the start (3)"
        );
        assert!(window(f64::NAN, 2.0).is_err() && window(f64::INFINITY, f64::INFINITY).is_err());
        assert_eq!(Window::parse("0.26..0.30").unwrap().to_string(), "0.26..0.3");
    }

    #[test]
    fn values_are_checked_once_with_one_set_of_messages() {
        assert_eq!(Query::from_parts(None, None, None, None), Ok(Query::new()));
        let open = Window::new(Millis(f64::NEG_INFINITY), Millis(f64::INFINITY)).unwrap();
        assert_eq!(Query::new().with_window(open).window(), None);
        let error = |e: QueryError| (e.field(), e.to_string());
        assert_eq!(
            error(Query::new().with_thread(" ").unwrap_err()),
            (Some(Field::Thread), "give a thread name, part of one, or a tid".into())
        );
        assert_eq!(Query::parse_levels("0"), Err(QueryError::NoLevels));
        assert_eq!(
            error(Query::parse_levels("x").unwrap_err()),
            (Some(Field::Levels), "not a number of levels: 'x'".into())
        );
        assert_eq!(
            error(Query::parse_min_duration("-1").unwrap_err()),
            (Some(Field::MinDuration), "a duration cannot be negative: '-1'".into())
        );
        assert_eq!(
            Query::new().with_min_duration(Millis(-1.0)).unwrap_err().to_string(),
            "a duration cannot be negative: '-1'"
        );
        assert!(Query::new().with_min_duration(Millis(f64::NAN)).is_err());
        assert_eq!(Query::new().with_levels(3).unwrap().levels(), Some(3));
    }
}
