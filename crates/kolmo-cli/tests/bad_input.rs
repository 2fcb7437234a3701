//! The catalogue of bad input (issue 15 §6): for each command, every class of malformed input
//! we know of — syntax, numbers, ranges, structure, sums, sizes, flags — must exit with code 2,
//! print nothing on standard output, and name the place: `file:line:column` (or `file:line`
//! where the fault is a whole line), or the flag. `{f}` stands for the input file's path.

use assert_cmd::Command;

/// One bad input: a name, the file's extension and text (none: no file), the arguments, and
/// what the message must contain to name the place.
struct Case {
    name: &'static str,
    file: Option<(&'static str, &'static str)>,
    args: &'static [&'static str],
    place: &'static str,
}

fn check(cases: &[Case]) {
    let dir = tempfile::tempdir().unwrap();
    for (i, c) in cases.iter().enumerate() {
        let path = c.file.map(|(ext, text)| {
            let p = dir.path().join(format!("case{i}.{ext}"));
            std::fs::write(&p, text).unwrap();
            p.to_str().unwrap().to_string()
        });
        let sub = |s: &str| {
            path.as_ref()
                .map_or_else(|| s.to_string(), |p| s.replace("{f}", p))
        };
        let args: Vec<String> = c.args.iter().map(|a| sub(a)).collect();
        let out = Command::cargo_bin("kolmo").unwrap().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}: exit {:?}: {stderr}",
            c.name,
            out.status.code()
        );
        assert!(out.stdout.is_empty(), "{}: printed on stdout", c.name);
        let place = sub(c.place);
        assert!(
            stderr.contains(&place),
            "{}: the message does not name {place}: {stderr}",
            c.name
        );
        assert!(
            stderr.lines().any(|l| l.starts_with("help: ")),
            "{}: no help line: {stderr}",
            c.name
        );
    }
}

#[test]
fn snakes_refuses_bad_input_naming_the_place() {
    check(&[
        Case {
            name: "toml syntax",
            file: Some(("toml", "size = [\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:1:9",
        },
        Case {
            name: "unknown key",
            file: Some(("toml", "size = 10\ncolour = 3\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2:1",
        },
        Case {
            name: "size negative",
            file: Some(("toml", "size = -5\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:1",
        },
        Case {
            name: "size zero",
            file: Some(("toml", "size = 0\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:1",
        },
        Case {
            name: "size huge",
            file: Some(("toml", "size = 100000000000\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:1",
        },
        Case {
            name: "size not a number",
            file: Some(("toml", "size = \"ten\"\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:1:8",
        },
        Case {
            name: "faces zero",
            file: Some(("toml", "size = 10\nfaces = 0\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2:9",
        },
        Case {
            name: "faces negative",
            file: Some(("toml", "size = 10\nfaces = -3\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2:9",
        },
        Case {
            name: "die negative weight",
            file: Some(("toml", "size = 10\ndie = [1, -1]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "die all zero",
            file: Some(("toml", "size = 10\ndie = [0, 0]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "die nan",
            file: Some(("toml", "size = 10\ndie = [nan, 1]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "die inf",
            file: Some(("toml", "size = 10\ndie = [inf, 1]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "die empty",
            file: Some(("toml", "size = 10\ndie = []\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "faces and die",
            file: Some(("toml", "size = 10\nfaces = 6\ndie = [1, 2]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:3:7",
        },
        Case {
            name: "ladder off board",
            file: Some(("toml", "size = 10\nladders = [[3, 50]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "portal from last cell",
            file: Some(("toml", "size = 10\nsnakes = [[10, 2]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "two portals one cell",
            file: Some(("toml", "size = 10\nladders = [[3, 5], [3, 7]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "portal to itself",
            file: Some(("toml", "size = 10\nportals = [[4, 4]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "ladder down",
            file: Some(("toml", "size = 10\nladders = [[5, 2]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "snake up",
            file: Some(("toml", "size = 10\nsnakes = [[2, 5]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "portal arity",
            file: Some(("toml", "size = 10\nladders = [[3, 5, 7]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2:12",
        },
        Case {
            name: "portal negative",
            file: Some(("toml", "size = 10\nladders = [[-3, 5]]\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "start off board",
            file: Some(("toml", "size = 10\nstart = 11\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2",
        },
        Case {
            name: "unknown rule",
            file: Some(("toml", "size = 10\nrule = \"wrap\"\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:2:8",
        },
        Case {
            name: "bounce too far",
            file: Some(("toml", "size = 3\nfaces = 9\nrule = \"bounce\"\n")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:3",
        },
        Case {
            name: "binary garbage",
            file: Some(("toml", "\x00\x01\x02size")),
            args: &["snakes", "{f}", "--mc", "0"],
            place: "{f}:1:8",
        },
        Case {
            name: "missing board file",
            file: None,
            args: &["snakes", "/nonexistent/board.toml"],
            place: "/nonexistent/board.toml",
        },
        Case {
            name: "quantile above 1",
            file: None,
            args: &["snakes", "--quantiles", "1.5"],
            place: "--quantiles",
        },
        Case {
            name: "quantile not a number",
            file: None,
            args: &["snakes", "--quantiles", "abc"],
            place: "--quantiles",
        },
        Case {
            name: "cell off board",
            file: None,
            args: &["snakes", "--cells", "999"],
            place: "--cells",
        },
        Case {
            name: "cell not a number",
            file: None,
            args: &["snakes", "--cells", "x"],
            place: "--cells",
        },
        Case {
            name: "players zero",
            file: None,
            args: &["snakes", "--players", "0"],
            place: "--players",
        },
        Case {
            name: "faces zero flag",
            file: None,
            args: &["snakes", "--faces", "0"],
            place: "--faces",
        },
        Case {
            name: "die flag negative",
            file: None,
            args: &["snakes", "--die", "1,-1"],
            place: "--die",
        },
        Case {
            name: "start flag off board",
            file: None,
            args: &["snakes", "--start", "500"],
            place: "--start",
        },
        Case {
            name: "size flag zero",
            file: None,
            args: &["snakes", "empty", "--size", "0"],
            place: "--size",
        },
        Case {
            name: "rule flag",
            file: None,
            args: &["snakes", "--rule", "wrap"],
            place: "--rule",
        },
        Case {
            name: "method flag",
            file: None,
            args: &["snakes", "--method", "magic"],
            place: "--method",
        },
        Case {
            name: "mc not a number",
            file: None,
            args: &["snakes", "--mc", "many"],
            place: "--mc",
        },
        Case {
            name: "mc too many",
            file: None,
            args: &["snakes", "--mc", "1000000000000000000"],
            place: "--mc",
        },
        Case {
            name: "max rolls zero",
            file: None,
            args: &["snakes", "--max-rolls", "0"],
            place: "--max-rolls",
        },
        Case {
            name: "export extension",
            file: None,
            args: &["snakes", "--export", "/tmp/x.xyz"],
            place: "--export",
        },
        Case {
            name: "plot extension",
            file: None,
            args: &["snakes", "--plot", "/tmp/x.gif"],
            place: "--plot",
        },
        Case {
            name: "turns negative",
            file: None,
            args: &["snakes", "--turns", "-1"],
            place: "--turns",
        },
        Case {
            name: "distribution not a number",
            file: None,
            args: &["snakes", "--distribution", "x"],
            place: "--distribution",
        },
        Case {
            name: "unknown flag",
            file: None,
            args: &["snakes", "--colour", "red"],
            place: "--colour",
        },
    ]);
}

#[test]
fn analyze_refuses_bad_input_naming_the_place() {
    check(&[
        Case {
            name: "drn row sum",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.7\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:13:3",
        },
        Case {
            name: "drn target out of range",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t5 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:13:3",
        },
        Case {
            name: "drn probability not a number",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : abc\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:13:7",
        },
        Case {
            name: "drn model type",
            file: Some((
                "drn",
                "@type: CTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:1:1",
        },
        Case {
            name: "drn state count",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n3\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:7:1",
        },
        Case {
            name: "drn negative probability",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : -0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:13:3",
        },
        Case {
            name: "drn state order",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 7 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:15:7",
        },
        Case {
            name: "drn no model section",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:10:1",
        },
        Case {
            name: "drn bad action line",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\tactoin 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:12:2",
        },
        Case {
            name: "drn transition before state",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\n\t\t0 : 1\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:11:3",
        },
        Case {
            name: "drn probability above 1",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 2\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:17:3",
        },
        Case {
            name: "drn rational zero denominator",
            file: Some((
                "drn",
                "@type: DTMC\n@value_type: rational\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 1/0\n\t\t1 : 1/2\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:14:7",
        },
        Case {
            name: "drn state without actions",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:9:1",
        },
        Case {
            name: "tra empty",
            file: Some(("tra", "0 1 0.5\n")),
            args: &["analyze", "{f}"],
            place: "{f}:1:1",
        },
        Case {
            name: "tra bad probability",
            file: Some(("tra", "2 3\n0 0 0.5\n0 1 0.5\n1 1 x\n")),
            args: &["analyze", "{f}"],
            place: "{f}:4:5",
        },
        Case {
            name: "tra target out of range",
            file: Some(("tra", "2 3\n0 0 0.5\n0 1 0.5\n1 5 1\n")),
            args: &["analyze", "{f}"],
            place: "{f}:4:1",
        },
        Case {
            name: "tra row sum",
            file: Some(("tra", "2 3\n0 0 0.5\n0 1 0.9\n1 1 1\n")),
            args: &["analyze", "{f}"],
            place: "{f}:2:1",
        },
        Case {
            name: "tra header count",
            file: Some(("tra", "2 7\n0 0 0.5\n0 1 0.5\n1 1 1\n")),
            args: &["analyze", "{f}"],
            place: "{f}:1:3",
        },
        Case {
            name: "tra negative",
            file: Some(("tra", "2 3\n0 0 0.5\n0 1 -0.5\n1 1 1\n")),
            args: &["analyze", "{f}"],
            place: "{f}:3:1",
        },
        Case {
            name: "json not json",
            file: Some(("json", "{ states: 2 ")),
            args: &["analyze", "{f}"],
            place: "{f}:1:3",
        },
        Case {
            name: "json no transitions",
            file: Some(("json", "{\"states\": 2}")),
            args: &["analyze", "{f}"],
            place: "{f}:1:1",
        },
        Case {
            name: "json state without row",
            file: Some(("json", "{\"states\": 2, \"transitions\": [[0, 1, 1]]}")),
            args: &["analyze", "{f}"],
            place: "{f}:1:30",
        },
        Case {
            name: "json string probability",
            file: Some((
                "json",
                "{\"states\": 2, \"initial\": 0,\n \"transitions\": [[0, 0, 0.5], [0, 1, 0.5], [1, 1, \"x\"]],\n \"labels\": {\"goal\": [1]}}\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:2:51",
        },
        Case {
            name: "json negative",
            file: Some((
                "json",
                "{\"states\": 2, \"initial\": 0,\n \"transitions\": [[0, 0, 0.5], [0, 1, -0.5], [1, 1, 1]],\n \"labels\": {\"goal\": [1]}}\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:2:31",
        },
        Case {
            name: "json state out of range",
            file: Some((
                "json",
                "{\"states\": 2, \"initial\": 0,\n \"transitions\": [[0, 0, 0.5], [0, 1, 0.5], [1, 4, 1]],\n \"labels\": {\"goal\": [1]}}\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:2:48",
        },
        Case {
            name: "json label out of range",
            file: Some((
                "json",
                "{\"states\": 2, \"initial\": 0,\n \"transitions\": [[0, 0, 0.5], [0, 1, 0.5], [1, 1, 1]],\n \"labels\": {\"goal\": [9]}}\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:3:22",
        },
        Case {
            name: "json unknown field",
            file: Some((
                "json",
                "{\"states\": 2, \"intial\": 0,\n \"transitions\": [[0, 0, 0.5], [0, 1, 0.5], [1, 1, 1]],\n \"labels\": {\"goal\": [1]}}\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:1:15",
        },
        Case {
            name: "json initial out of range",
            file: Some((
                "json",
                "{\"states\": 2, \"initial\": 5,\n \"transitions\": [[0, 0, 0.5], [0, 1, 0.5], [1, 1, 1]],\n \"labels\": {\"goal\": [1]}}\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:1:26",
        },
        Case {
            name: "csv ragged",
            file: Some(("csv", "0.5,0.5\n0.5\n")),
            args: &["analyze", "{f}"],
            place: "{f}:2:4",
        },
        Case {
            name: "csv not a number",
            file: Some(("csv", "0.5,0.5\n0.5,x\n")),
            args: &["analyze", "{f}"],
            place: "{f}:2:5",
        },
        Case {
            name: "csv row sum",
            file: Some(("csv", "0.5,0.5\n0.5,0.6\n")),
            args: &["analyze", "{f}"],
            place: "{f}:2:1",
        },
        Case {
            name: "csv nan first line",
            file: Some(("csv", "nan,1\n0.5,0.5\n")),
            args: &["analyze", "{f}"],
            place: "{f}:1:1",
        },
        Case {
            name: "csv not square",
            file: Some(("csv", "0.5,0.5\n0.5,0.5\n1,0\n")),
            args: &["analyze", "{f}"],
            place: "{f}:3:1",
        },
        Case {
            name: "mtx index out of range",
            file: Some((
                "mtx",
                "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0.5\n3 2 0.5\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:4:1",
        },
        Case {
            name: "mtx entry count",
            file: Some(("mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n")),
            args: &["analyze", "{f}"],
            place: "{f}:4:1",
        },
        Case {
            name: "mtx header",
            file: Some((
                "mtx",
                "%%MatrixMarket tensor coordinate real general\n2 2 1\n1 1 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:1:16",
        },
        Case {
            name: "mtx not a number",
            file: Some((
                "mtx",
                "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 x\n2 2 1\n",
            )),
            args: &["analyze", "{f}"],
            place: "{f}:3:5",
        },
        Case {
            name: "npy garbage",
            file: Some(("npy", "garbage")),
            args: &["analyze", "{f}"],
            place: "invalid model file: {f}",
        },
        Case {
            name: "target not a label",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}", "--target", "nolabel"],
            place: "--target",
        },
        Case {
            name: "target state out of range",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}", "--target", "9"],
            place: "--target",
        },
        Case {
            name: "from out of range",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}", "--from", "9"],
            place: "--from",
        },
        Case {
            name: "format unknown",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}", "--format", "xml"],
            place: "--format",
        },
        Case {
            name: "format wrong for file",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}", "--format", "json"],
            place: "{f}:1:1",
        },
        Case {
            name: "method unknown",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}", "--method", "magic"],
            place: "--method",
        },
        Case {
            name: "reward missing",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n2\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["analyze", "{f}", "--target", "goal", "--reward", "cost"],
            place: "--reward",
        },
        Case {
            name: "missing model file",
            file: None,
            args: &["analyze", "/nonexistent/m.drn"],
            place: "cannot read /nonexistent/m.drn",
        },
        Case {
            name: "unknown extension",
            file: Some(("xyz", "1 2 3\n")),
            args: &["analyze", "{f}"],
            place: "invalid model file: {f}",
        },
    ]);
}

#[test]
fn solve_refuses_bad_input_naming_the_place() {
    check(&[
        Case {
            name: "objective unknown",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "fastest"],
            place: "--objective",
        },
        Case {
            name: "discount above 1",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted:1.5"],
            place: "--objective",
        },
        Case {
            name: "discount not a number",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted:abc"],
            place: "--objective",
        },
        Case {
            name: "discount zero denominator",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted:1/0"],
            place: "--objective",
        },
        Case {
            name: "horizon negative",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "horizon:-1"],
            place: "--objective",
        },
        Case {
            name: "horizon not a number",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "horizon:x"],
            place: "--objective",
        },
        Case {
            name: "reach label missing",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "max-reach:nolabel"],
            place: "--objective",
        },
        Case {
            name: "reward model missing",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &[
                "solve",
                "{f}",
                "--objective",
                "discounted:0.9",
                "--reward",
                "cost",
            ],
            place: "--reward",
        },
        Case {
            name: "max iterations zero",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "average", "--max-iterations", "0"],
            place: "--max-iterations",
        },
        Case {
            name: "discount without file discount",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted"],
            place: "--objective",
        },
        Case {
            name: "arrays P not stochastic",
            file: Some((
                "json",
                "{\"P\": [[[0.9, 0.3], [0, 1]], [[1, 0], [1, 0]]],\n \"R\": [[0, 1], [4, 2]], \"discount\": 0.9}\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted"],
            place: "{f}:1:10",
        },
        Case {
            name: "arrays negative",
            file: Some((
                "json",
                "{\"P\": [[[1.1, -0.1], [0, 1]], [[1, 0], [1, 0]]],\n \"R\": [[0, 1], [4, 2]], \"discount\": 0.9}\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted"],
            place: "{f}:1:15",
        },
        Case {
            name: "arrays R shape",
            file: Some((
                "json",
                "{\"P\": [[[0.9, 0.1], [0, 1]], [[1, 0], [1, 0]]],\n \"R\": [[0, 1, 3], [4, 2]], \"discount\": 0.9}\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted"],
            place: "{f}:2:19",
        },
        Case {
            name: "arrays discount string",
            file: Some((
                "json",
                "{\"P\": [[[0.9, 0.1], [0, 1]], [[1, 0], [1, 0]]],\n \"R\": [[0, 1], [4, 2]], \"discount\": \"1/0\"}\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted"],
            place: "{f}:2:37",
        },
        Case {
            name: "arrays discount above 1",
            file: Some((
                "json",
                "{\"P\": [[[0.9, 0.1], [0, 1]], [[1, 0], [1, 0]]],\n \"R\": [[0, 1], [4, 2]], \"discount\": 1.5}\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted"],
            place: "{f}:2:37",
        },
        Case {
            name: "arrays P ragged",
            file: Some((
                "json",
                "{\"P\": [[[0.9, 0.1], [1]], [[1, 0], [1, 0]]],\n \"R\": [[0, 1], [4, 2]], \"discount\": 0.9}\n",
            )),
            args: &["solve", "{f}", "--objective", "discounted"],
            place: "{f}:1:21",
        },
        Case {
            name: "drn mdp row sum",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.9\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "average"],
            place: "{f}:13:3",
        },
        Case {
            name: "missing objective",
            file: Some((
                "drn",
                "@type: MDP\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n\t\t1 : 0.5\n\taction 1\n\t\t1 : 1\nstate 1 goal\n\taction 0\n\t\t1 : 1\n",
            )),
            args: &["solve", "{f}"],
            place: "--objective",
        },
    ]);
}

#[test]
fn judge_refuses_bad_input_naming_the_place() {
    check(&[
        Case {
            name: "loj empty",
            file: Some(("txt", "")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:1",
        },
        Case {
            name: "loj T not a number",
            file: Some(("txt", "x\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:1:1",
        },
        Case {
            name: "loj truncated",
            file: Some(("txt", "1\n2\n2 50\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:3",
        },
        Case {
            name: "loj cell above 100",
            file: Some(("txt", "1\n2\n2 50\n160 3\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:4:1",
        },
        Case {
            name: "loj cell 0",
            file: Some(("txt", "1\n2\n2 50\n0 3\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:4:1",
        },
        Case {
            name: "loj portal from 100",
            file: Some(("txt", "1\n2\n2 50\n100 3\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:4",
        },
        Case {
            name: "loj two portals one cell",
            file: Some(("txt", "1\n2\n2 50\n2 30\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:4",
        },
        Case {
            name: "loj portal to itself",
            file: Some(("txt", "1\n2\n2 50\n60 60\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:4",
        },
        Case {
            name: "loj too many portals",
            file: Some(("txt", "1\n100\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:2:1",
        },
        Case {
            name: "loj extra tokens",
            file: Some(("txt", "1\n2\n2 50\n60 3\n7 8\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:5:1",
        },
        Case {
            name: "loj negative n",
            file: Some(("txt", "1\n-2\n")),
            args: &["judge", "lightoj-1151", "{f}"],
            place: "{f}:2:1",
        },
        Case {
            name: "rps empty",
            file: Some(("txt", "")),
            args: &["judge", "rps-cards", "{f}"],
            place: "{f}:1",
        },
        Case {
            name: "rps k zero",
            file: Some(("txt", "1\n0 RPS RPS\n")),
            args: &["judge", "rps-cards", "{f}"],
            place: "{f}:2:1",
        },
        Case {
            name: "rps k too big",
            file: Some(("txt", "1\n10000000000 RPS RPS\n")),
            args: &["judge", "rps-cards", "{f}"],
            place: "{f}:2:1",
        },
        Case {
            name: "rps bad hand",
            file: Some(("txt", "1\n3 RPX RPS\n")),
            args: &["judge", "rps-cards", "{f}"],
            place: "{f}:2:3",
        },
        Case {
            name: "rps short hand",
            file: Some(("txt", "1\n3 RP RPS\n")),
            args: &["judge", "rps-cards", "{f}"],
            place: "{f}:2:3",
        },
        Case {
            name: "rps truncated",
            file: Some(("txt", "2\n3 RPS RPS\n")),
            args: &["judge", "rps-cards", "{f}"],
            place: "{f}:2",
        },
        Case {
            name: "rps T not a number",
            file: Some(("txt", "many\n")),
            args: &["judge", "rps-cards", "{f}"],
            place: "{f}:1:1",
        },
        Case {
            name: "cf truncated",
            file: Some(("txt", "0 0 0\n")),
            args: &["judge", "cf-1245e", "{f}"],
            place: "{f}:1",
        },
        Case {
            name: "cf not an integer",
            file: Some((
                "txt",
                "x 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n",
            )),
            args: &["judge", "cf-1245e", "{f}"],
            place: "{f}:1:1",
        },
        Case {
            name: "cf height above 9",
            file: Some((
                "txt",
                "0 12 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n",
            )),
            args: &["judge", "cf-1245e", "{f}"],
            place: "{f}:1:3",
        },
        Case {
            name: "cf ladder above top",
            file: Some((
                "txt",
                "0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 9 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n",
            )),
            args: &["judge", "cf-1245e", "{f}"],
            place: "{f}:2:11",
        },
        Case {
            name: "cf ladder on start",
            file: Some((
                "txt",
                "0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n3 0 0 0 0 0 0 0 0 0\n",
            )),
            args: &["judge", "cf-1245e", "{f}"],
            place: "{f}:10:1",
        },
        Case {
            name: "cf too many heights",
            file: Some((
                "txt",
                "0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0 0 0\n0\n",
            )),
            args: &["judge", "cf-1245e", "{f}"],
            place: "{f}:11:1",
        },
        Case {
            name: "judge unknown problem",
            file: None,
            args: &["judge", "nosuch"],
            place: "'nosuch'",
        },
        Case {
            name: "judge missing input file",
            file: None,
            args: &["judge", "lightoj-1151", "/nonexistent/in.txt"],
            place: "cannot read /nonexistent/in.txt",
        },
    ]);
}

#[test]
fn cards_refuses_bad_input_naming_the_place() {
    check(&[
        Case {
            name: "rounds not a number",
            file: None,
            args: &["cards", "--rounds", "abc"],
            place: "--rounds",
        },
        Case {
            name: "rounds zero",
            file: None,
            args: &["cards", "--rounds", "0"],
            place: "--rounds",
        },
        Case {
            name: "rounds too many",
            file: None,
            args: &["cards", "--rounds", "10000000000000000000"],
            place: "--rounds",
        },
        Case {
            name: "alice hand letters",
            file: None,
            args: &["cards", "--alice", "RPX"],
            place: "--alice",
        },
        Case {
            name: "bob hand length",
            file: None,
            args: &["cards", "--bob", "RP"],
            place: "--bob",
        },
        Case {
            name: "threads zero",
            file: None,
            args: &["cards", "--threads", "0"],
            place: "--threads",
        },
    ]);
}

/// A two-state chain for `kolmo check`: s=0 stays or moves to s=1 (absorbing) w.p. 1/2.
const CHECK_CHAIN: &str = "dtmc\nmodule m\n  s : [0..1] init 0;\n  [] s=0 -> 0.5:(s'=1) + 0.5:(s'=0);\n  [] s=1 -> true;\nendmodule\nlabel \"goal\" = s=1;\nrewards \"steps\"\n  s=0 : 1;\nendrewards\n";
/// The same with the probability a constant without a value (line 2; used on line 5, column 13).
const CHECK_OPEN: &str = "dtmc\nconst double p;\nmodule m\n  s : [0..1] init 0;\n  [] s=0 -> p:(s'=1) + (1-p):(s'=0);\n  [] s=1 -> true;\nendmodule\n";
/// An MDP: in s=0, go or stay.
const CHECK_MDP: &str = "mdp\nmodule m\n  s : [0..1] init 0;\n  [go] s=0 -> (s'=1);\n  [stay] s=0 -> (s'=0);\n  [] s=1 -> true;\nendmodule\nrewards\n  s=0 : 1;\nendrewards\n";

#[test]
fn check_refuses_bad_input_naming_the_place() {
    check(&[
        Case {
            name: "model syntax",
            file: Some((
                "pm",
                "dtmc\nmodule m\n  s : [0..1] init 0;\n  [] s=0 -> 0.5:(s'=1) + ;\nendmodule\n",
            )),
            args: &["check", "{f}", "--prop", "P=? [F s=1]"],
            place: "{f}:4:26",
        },
        Case {
            name: "model unknown variable",
            file: Some((
                "pm",
                "dtmc\nmodule m\n  s : [0..1] init 0;\n  [] s=0 -> (t'=1);\nendmodule\n",
            )),
            args: &["check", "{f}", "--prop", "P=? [F s=1]"],
            place: "{f}:4:",
        },
        Case {
            name: "more states than --max-states (a counter to 2·10^9 used to fill the memory)",
            file: Some((
                "pm",
                "dtmc\nmodule m\n x : [0..2000000000] init 0;\n [] x<2000000000 -> (x'=x+1);\n [] x=2000000000 -> true;\nendmodule\n",
            )),
            args: &["check", "{f}", "--prop", "P=? [F x=5]", "--max-states", "1000"],
            place: "--max-states",
        },
        Case {
            name: "a game given to kolmo solve (one optimum does not fit two players)",
            file: Some((
                "drn",
                "@type: SMG\n@players\na b\n@nr_states\n1\n@model\nstate 0 <a> init\n\taction x\n\t\t0 : 1\n",
            )),
            args: &["solve", "{f}", "--objective", "max-reach:init"],
            place: "a game (players a, b)",
        },
        Case {
            name: "a game exported as PRISM explicit (the format would drop its owners)",
            file: Some((
                "prism",
                "smg\nplayer a m endplayer\nmodule m\n x : [0..1] init 0;\n [] x=0 -> (x'=1);\n [] x=1 -> true;\nendmodule\n",
            )),
            args: &[
                "check",
                "{f}",
                "--prop",
                "<<a>> Pmax=? [F x=1]",
                "--export",
                "/tmp/kolmo-game-export.tra",
            ],
            place: "--export",
        },
        Case {
            name: "property syntax",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F \"goal\""],
            place: "--prop:1:14",
        },
        Case {
            name: "undefined label",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F \"nope\"]"],
            place: "--prop:1:8",
        },
        Case {
            name: "undefined label in the second --prop",
            file: Some(("pm", CHECK_CHAIN)),
            args: &[
                "check",
                "{f}",
                "--prop",
                "P=? [F \"goal\"]",
                "--prop",
                "P=? [F \"nope\"]",
            ],
            place: "--prop 2:1:8",
        },
        Case {
            name: "undefined variable",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F t=1]"],
            place: "--prop:1:8",
        },
        Case {
            name: "type error",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F s=2+true]"],
            place: "--prop:1:10",
        },
        Case {
            name: "unknown reward structure",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "R{\"cost\"}=? [F s=1]"],
            place: "--prop:1:3",
        },
        Case {
            name: "reward structure number beyond",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "R{2}=? [F s=1]"],
            place: "--prop:1:3",
        },
        Case {
            name: "reward on a model without rewards",
            file: Some(("pm", CHECK_OPEN)),
            args: &["check", "{f}", "--prop", "R=? [F s=1]", "--const", "p=0.5"],
            place: "--prop:1:1",
        },
        Case {
            name: "P=? on an MDP",
            file: Some(("nm", CHECK_MDP)),
            args: &["check", "{f}", "--prop", "P=? [F s=1]"],
            place: "--prop:1:1",
        },
        Case {
            name: "R=? on an MDP",
            file: Some(("nm", CHECK_MDP)),
            args: &["check", "{f}", "--prop", "R=? [F s=1]"],
            place: "--prop:1:1",
        },
        Case {
            name: "no properties",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}"],
            place: "--prop",
        },
        Case {
            name: "const unknown",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F s=1]", "--const", "q=3"],
            place: "--const",
        },
        Case {
            name: "const without a value",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F s=1]", "--const", "p"],
            place: "--const",
        },
        Case {
            name: "const range malformed",
            file: Some(("pm", CHECK_OPEN)),
            args: &["check", "{f}", "--prop", "P=? [F s=1]", "--const", "p=0:x"],
            place: "--const",
        },
        Case {
            name: "model constant without a value",
            file: Some(("pm", CHECK_OPEN)),
            args: &["check", "{f}", "--prop", "P=? [F s=1]"],
            place: "{f}:5:13",
        },
        Case {
            name: "property constant without a value",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "const int k; P=? [F<=k s=1]"],
            place: "--prop:1:22",
        },
        Case {
            name: "const makes a probability negative",
            file: Some(("pm", CHECK_OPEN)),
            args: &["check", "{f}", "--prop", "P=? [F s=1]", "--const", "p=1.5"],
            place: "{f}:5:3",
        },
        Case {
            name: "step bound negative",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F<=-1 s=1]"],
            place: "--prop:1:9",
        },
        Case {
            name: "step bound not an int",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F<=0.5 s=1]"],
            place: "--prop:1:9",
        },
        Case {
            name: "lower step bound",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F>=2 s=1]"],
            place: "--prop:1:7",
        },
        Case {
            name: "filter state of two states",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "filter(state, P=? [F s=1], true)"],
            place: "--prop:1:1",
        },
        Case {
            name: "deadlock refused",
            file: Some((
                "pm",
                "dtmc\nmodule m\n  s : [0..2] init 0;\n  [] s=0 -> 0.25:(s'=1) + 0.75:(s'=2);\nendmodule\n",
            )),
            args: &["check", "{f}", "--prop", "P=? [F s=1]", "--no-fix-deadlocks"],
            place: "state (s=1)",
        },
        Case {
            name: "export format unknown",
            file: Some(("pm", CHECK_CHAIN)),
            args: &["check", "{f}", "--prop", "P=? [F s=1]", "--export", "{f}.xyz"],
            place: "--export",
        },
        Case {
            name: "max iterations zero",
            file: Some(("nm", CHECK_MDP)),
            args: &[
                "check",
                "{f}",
                "--prop",
                "Pmax=? [F s=1]",
                "--max-iterations",
                "0",
            ],
            place: "--max-iterations",
        },
        Case {
            name: "model file missing",
            file: None,
            args: &["check", "/nonexistent/kolmo/model.pm", "--prop", "P=? [F s=1]"],
            place: "/nonexistent/kolmo/model.pm",
        },
        Case {
            name: "drn row sum",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n1\n@model\nstate 0 init\n\taction 0\n\t\t0 : 0.5\n",
            )),
            args: &["check", "{f}", "--prop", "P=? [F \"init\"]"],
            place: "{f}:11:3",
        },
        Case {
            name: "label not in the model file",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n1\n@model\nstate 0 init\n\taction 0\n\t\t0 : 1\n",
            )),
            args: &["check", "{f}", "--prop", "P=? [F \"home\"]"],
            place: "--prop:1:8",
        },
        Case {
            name: "variable over a model file",
            file: Some((
                "drn",
                "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n1\n@model\nstate 0 init\n\taction 0\n\t\t0 : 1\n",
            )),
            args: &["check", "{f}", "--prop", "P=? [F s=1]"],
            place: "--prop:1:8",
        },
    ]);
}

// 173 cases in all.
