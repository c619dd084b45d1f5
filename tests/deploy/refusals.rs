//! `package` refuses what it cannot package, before writing anything
//! (exit 2, saying why).

use crate::util::deploy::*;

#[test]
fn package_refuses_bad_input_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let zip = tmp.path().join("a.zip");
    let zip = zip.to_str().unwrap();
    let dir = tmp.path().join("t");
    let dir = dir.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "package",
                "gradescope",
                "--assignment",
                "no-such",
                "-o",
                zip,
            ],
            "no-such",
        ),
        (
            &["package", "gradescope", "--assignment", "a b", "-o", zip],
            "letters, digits",
        ),
        (
            &[
                "package",
                "gradescope",
                "--assignment",
                "tool-proposals",
                "--binary",
                "/nonexistent",
                "-o",
                zip,
            ],
            "/nonexistent",
        ),
        (
            &[
                "package",
                "ci",
                "--assignment",
                "tool-proposals",
                "-o",
                dir,
                "--binary-sha256",
                "abc",
            ],
            "SHA-256",
        ),
        (
            &[
                "package",
                "ci",
                "--assignment",
                "tool-proposals",
                "-o",
                dir,
                "--binary-url",
                "https://x/$(id)",
            ],
            "cannot go into a workflow",
        ),
        (
            &[
                "package",
                "ci",
                "--assignment",
                "tool-proposals",
                "-o",
                "cases",
            ],
            "not an empty folder",
        ),
        (
            &["package", "slurm", "--shards", "0", "-o", dir],
            "not in 1..=100000",
        ),
        (
            &[
                "package",
                "slurm",
                "--shards",
                "2",
                "--partition",
                "a b",
                "-o",
                dir,
            ],
            "only letters, digits",
        ),
        (
            &[
                "package", "slurm", "--shards", "2", "--time", "$(id)", "-o", dir,
            ],
            "only letters, digits",
        ),
        (
            &[
                "package",
                "slurm",
                "no-such-folder",
                "--shards",
                "2",
                "-o",
                dir,
            ],
            "not a folder of submissions",
        ),
        (
            &[
                "package", "slurm", "--shards", "2", "--lesson", "a;b", "-o", dir,
            ],
            "letters, digits",
        ),
        (
            &[
                "package",
                "kubernetes",
                "--shards",
                "2",
                "--claim",
                "My_Claim",
                "-o",
                dir,
            ],
            "volume claim",
        ),
        (
            &[
                "package",
                "kubernetes",
                "--shards",
                "2",
                "--image",
                "x\ny",
                "-o",
                dir,
            ],
            "only letters, digits",
        ),
    ];
    for (args, says) in cases {
        let out = autograder(&repo(), args);
        expect_code(&out, 2, &args.join(" "));
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    assert!(
        !tmp.path().join("a.zip").exists() && !tmp.path().join("t").exists(),
        "nothing written"
    );
}
