//! What the landlock tier promises, tried from student code (as root, and in
//! CI's unprivileged pass as a plain user, where there is no uid of its own
//! to lean on): it cannot read the corpus, another submission, the user's
//! home or the grader's binary; cannot write outside its own folder; cannot
//! connect to or bind on 127.0.0.1 (nor open any network socket); cannot
//! reach the host's UNIX sockets (by path or abstract name); cannot signal
//! or ptrace its supervisor. The same probe under bwrap checks what
//! bwrap promises in turn.

use crate::util::record as record_support;

use autograder::recording::format::CaseOutcome;
use autograder::runner::IsolationChoice;
use autograder::submission::discover;
use autograder::value::PyValue;
use record_support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn tiers_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiers")
}

/// What the probe managed to do under `tier`; the host paths it tried to
/// write are returned too, to check from outside.
fn probe(tier: IsolationChoice) -> (Vec<String>, Vec<PathBuf>) {
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let tag = format!("agprobe-{}-{tier:?}", std::process::id());
    let writes: Vec<PathBuf> = vec![
        PathBuf::from(format!("/tmp/{tag}")),
        Path::new(&home).join(&tag),
        tiers_fixtures().join(&tag),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases")
            .join(&tag),
    ];
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    let port = listener.local_addr().unwrap().port();
    let unix = HostSockets::open(&tag);
    let corpus_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/course.toml");
    let mut home_file = Path::new(&home).join(".profile");
    if !home_file.is_file() {
        home_file = Path::new(&home).join(format!("{tag}.home"));
        std::fs::write(&home_file, "home").expect("a file in the home folder");
    }
    let spec = json!({
        "read": {
            "corpus": corpus_file,
            "another submission": tiers_fixtures().join("other/main.py"),
            "home": home_file,
            "grader": env!("CARGO_BIN_EXE_autograder"),
        },
        "write": writes,
        "port": port,
        "unix_stream": unix.stream_path,
        "unix_datagram": unix.datagram_path,
        "unix_abstract": tag,
    });
    let corpus = corpus(vec![case(
        "parse_contract_json",
        "probe",
        vec![PyValue::str(&spec.to_string())],
    )]);
    let subs = discover(&tiers_fixtures()).expect("the fixtures are readable");
    let work = tempfile::tempdir().unwrap();
    let results = record(&corpus, &subs, &options(work.path(), 2, 5), tier);
    let _ = std::fs::remove_file(Path::new(&home).join(format!("{tag}.home")));
    let rec = recording(&results, "probe");
    assert_eq!(rec.isolation, tier_name(tier));
    let worked = match outcome(rec, "parse_contract_json/probe") {
        CaseOutcome::Returned { value, .. } => value.to_json().unwrap(),
        other => panic!("{tier:?}: the probe did not return: {other:?}"),
    };
    let worked: Vec<String> = serde_json::from_value::<Vec<Value>>(worked)
        .unwrap()
        .into_iter()
        .map(|v| v.as_str().unwrap_or("?").to_string())
        .collect();
    drop(listener);
    unix.assert_untouched(tier);
    (worked, writes)
}

/// UNIX sockets of the host's that only the sandbox keeps student code
/// from: a stream and a datagram one by path (in a folder every uid may
/// enter, the sockets writable by all, so that a worker uid of its own
/// would not stop it either) and a stream one by abstract name.
struct HostSockets {
    _dir: tempfile::TempDir,
    stream_path: PathBuf,
    datagram_path: PathBuf,
    stream: std::os::unix::net::UnixListener,
    datagram: std::os::unix::net::UnixDatagram,
    abstract_stream: std::os::unix::net::UnixListener,
}

impl HostSockets {
    fn open(abstract_name: &str) -> HostSockets {
        use std::os::linux::net::SocketAddrExt;
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::net::{SocketAddr, UnixDatagram, UnixListener};
        let dir = tempfile::tempdir().unwrap();
        let open_to_all = |p: &Path, mode| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        open_to_all(dir.path(), 0o755);
        let stream_path = dir.path().join("stream.sock");
        let stream = UnixListener::bind(&stream_path).unwrap();
        open_to_all(&stream_path, 0o777);
        let datagram_path = dir.path().join("datagram.sock");
        let datagram = UnixDatagram::bind(&datagram_path).unwrap();
        open_to_all(&datagram_path, 0o777);
        let name = SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
        let abstract_stream = UnixListener::bind_addr(&name).unwrap();
        for s in [&stream, &abstract_stream] {
            s.set_nonblocking(true).unwrap();
        }
        datagram.set_nonblocking(true).unwrap();
        HostSockets {
            _dir: dir,
            stream_path,
            datagram_path,
            stream,
            datagram,
            abstract_stream,
        }
    }

    /// Nothing connected to or was sent to any of them.
    fn assert_untouched(&self, tier: IsolationChoice) {
        let would_block = |r: std::io::Result<()>, what: &str| match r {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("{tier:?}: the host's {what} socket was reached: {other:?}"),
        };
        would_block(self.stream.accept().map(drop), "UNIX stream");
        would_block(self.abstract_stream.accept().map(drop), "abstract UNIX");
        would_block(self.datagram.recv(&mut [0; 16]).map(drop), "UNIX datagram");
    }
}

#[test]
fn landlock_keeps_student_code_in_its_folder_off_the_network_and_away_from_its_supervisor() {
    if !tier_or_skip(IsolationChoice::Landlock, "landlock_probe") {
        return;
    }
    let (worked, writes) = probe(IsolationChoice::Landlock);
    say!(
        "landlock probe as uid {}: {worked:?}",
        // SAFETY: getuid has no preconditions.
        unsafe { libc::getuid() }
    );
    assert_eq!(worked, Vec::<String>::new(), "landlock let these through");
    for path in &writes {
        assert!(!path.exists(), "{} was written", path.display());
    }
}

#[test]
fn bwrap_hides_the_host_and_its_network() {
    if !tier_or_skip(IsolationChoice::Bwrap, "bwrap_probe") {
        return;
    }
    let (worked, writes) = probe(IsolationChoice::Bwrap);
    say!("bwrap probe: {worked:?}");
    // /tmp is bwrap's own (a tmpfs per worker), / is its own root, and its
    // network is a namespace of its own (sockets work, but reach nothing of
    // the host's: the connect fails); no signal reaches the supervisor (the
    // seccomp filter), and ptrace only without a uid of its own (not root)
    // and without Landlock.
    let allowed = |w: &str| {
        w.starts_with("write /tmp/")
            || ["list /", "tcp bind", "udp socket"].contains(&w)
            || (!supervisor_scoped_everywhere() && w == "ptrace supervisor")
    };
    let refused: Vec<&String> = worked.iter().filter(|w| !allowed(w)).collect();
    assert!(refused.is_empty(), "bwrap let these through: {refused:?}");
    for path in &writes {
        assert!(!path.exists(), "{} was written on the host", path.display());
    }
}
