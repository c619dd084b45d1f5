//! A single-node Slurm cluster of the test's own, from Debian's `slurm-wlm`
//! and `munge`: munged, slurmctld and slurmd on localhost with every file in
//! a temporary folder, free ports, one partition, and no cgroups
//! (proctrack/linuxproc, task/none), so it runs in a container as root.
//! Dropping it stops the daemons and whatever jobs are left.

use super::deploy::text;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The partition every job goes to (the only one, and the default).
pub const PARTITION: &str = "grading";

pub struct Cluster {
    dir: PathBuf,
    daemons: Vec<Child>,
}

/// The daemons' programs, or why this machine has none.
pub fn missing() -> Option<String> {
    let absent: Vec<&str> = ["munged", "mungekey", "slurmctld", "slurmd", "sbatch"]
        .into_iter()
        .filter(|name| program(name).is_none())
        .collect();
    (!absent.is_empty()).then(|| {
        format!(
            "{} not installed (apt-get install slurm-wlm munge)",
            absent.join(", ")
        )
    })
}

/// `name` on PATH or in /usr/sbin (where Debian puts the daemons).
fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd in `dir` (which other users can
    /// enter: munged refuses a socket they cannot reach) and waits until the
    /// node is idle.
    pub fn start(dir: &Path) -> Cluster {
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            daemons: Vec::new(),
        };
        let munge = dir.join("munge");
        let key_dir = dir.join("munge-key");
        for (folder, mode) in [(&munge, 0o755), (&key_dir, 0o700)] {
            fs::create_dir_all(folder).unwrap();
            fs::set_permissions(folder, fs::Permissions::from_mode(mode)).unwrap();
        }
        let key = key_dir.join("munge.key");
        let made = Command::new(program("mungekey").unwrap())
            .arg("--create")
            .arg(format!("--keyfile={}", key.display()))
            .output()
            .unwrap();
        assert!(made.status.success(), "mungekey: {}", text(&made.stderr));
        let socket = munge.join("munge.socket");
        let munged = Command::new(program("munged").unwrap())
            .arg("--foreground")
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
            .arg(format!("--log-file={}", munge.join("munged.log").display()))
            .arg(format!(
                "--seed-file={}",
                munge.join("munged.seed").display()
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("munged starts");
        cluster.daemons.push(munged);
        cluster.wait("munged's socket", || socket.exists());
        fs::write(cluster.conf(), config(dir, &socket)).unwrap();
        for (daemon, log) in [("slurmctld", "slurmctld.out"), ("slurmd", "slurmd.out")] {
            let log = fs::File::create(dir.join(log)).unwrap();
            let child = Command::new(program(daemon).unwrap())
                .arg("-D")
                .env("SLURM_CONF", cluster.conf())
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| panic!("{daemon} starts: {e}"));
            cluster.daemons.push(child);
        }
        cluster.wait("the node to be idle", || {
            let out = cluster.client("sinfo", &["--noheader", "--format=%t"]);
            out.status.success() && text(&out.stdout).trim() == "idle"
        });
        cluster
    }

    /// The slurm.conf every command of this cluster reads (`SLURM_CONF`).
    pub fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// A client command (`squeue`, `scontrol`...) of this cluster.
    pub fn client(&self, name: &str, args: &[&str]) -> Output {
        self.client_in(&self.dir, name, args)
    }

    /// A client command of this cluster, run in `dir`.
    pub fn client_in(&self, dir: &Path, name: &str, args: &[&str]) -> Output {
        Command::new(program(name).unwrap_or_else(|| PathBuf::from(name)))
            .args(args)
            .current_dir(dir)
            .env("SLURM_CONF", self.conf())
            .output()
            .unwrap_or_else(|e| panic!("{name} runs: {e}"))
    }

    /// Polls `ready` for up to a minute, else fails with the daemons' logs.
    pub fn wait(&self, what: &str, mut ready: impl FnMut() -> bool) {
        self.wait_for(what, Duration::from_secs(60), &mut ready);
    }

    /// Polls `ready` every half second until `limit`, else fails with the
    /// daemons' logs and the queue.
    pub fn wait_for(&self, what: &str, limit: Duration, ready: &mut dyn FnMut() -> bool) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if ready() {
                return;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        panic!(
            "waited {}s for {what}\n{}",
            limit.as_secs(),
            self.diagnosis()
        );
    }

    /// The queue and the tail of every daemon's log.
    pub fn diagnosis(&self) -> String {
        let mut report = format!(
            "squeue:\n{}",
            text(&self.client("squeue", &["--all"]).stdout)
        );
        for log in [
            "munge/munged.log",
            "slurmctld.log",
            "slurmd.log",
            "slurmctld.out",
            "slurmd.out",
        ] {
            let content = fs::read_to_string(self.dir.join(log)).unwrap_or_default();
            let lines: Vec<&str> = content.lines().collect();
            let tail = lines[lines.len().saturating_sub(15)..].join("\n");
            report.push_str(&format!("\n--- {log}:\n{tail}"));
        }
        report
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs left by a failed test first, while slurmctld can cancel them.
        if self.daemons.len() == 3 {
            let _ = self.client("scancel", &["--user=root"]);
        }
        for child in self.daemons.iter_mut().rev() {
            // SAFETY: kill has no preconditions; the pid is our child's.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            let start = Instant::now();
            while matches!(child.try_wait(), Ok(None)) && start.elapsed() < Duration::from_secs(10)
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Two ports free now, for slurmctld and slurmd (never Slurm's defaults,
/// which a real installation on this machine may hold).
fn free_ports() -> (u16, u16) {
    let a = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let b = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    )
}

/// slurm.conf: this machine as the one node (its CPUs and memory as slurmd
/// finds them), root as the only user, state, spool, pid and log files
/// under `dir`, and no plugin that needs cgroups or accounting.
fn config(dir: &Path, munge_socket: &Path) -> String {
    let node = Command::new(program("slurmd").unwrap())
        .arg("-C")
        .output()
        .expect("slurmd -C runs");
    let node = text(&node.stdout);
    let node = node
        .lines()
        .find(|l| l.starts_with("NodeName="))
        .unwrap_or_else(|| panic!("slurmd -C printed no node: {node}"));
    let name = node["NodeName=".len()..].split_whitespace().next().unwrap();
    let (ctld_port, slurmd_port) = free_ports();
    for sub in ["state", "spool"] {
        fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let d = dir.display();
    format!(
        "ClusterName=autograder-test
SlurmctldHost={name}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={socket}
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
{node} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
",
        socket = munge_socket.display()
    )
}
