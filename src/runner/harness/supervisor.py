"""The supervisor: one per worker, reads each job from Rust, has the zygote
fork its children, watches them against their limits and answers Rust.

Run in harness.py's namespace by its `_load`, after the run's limits are
set; it defines names only."""


def _cpu_seconds(sid):
    """CPU time used so far (user + system) by the processes of session `sid`
    (the child and whatever it forked without leaving the session), from
    /proc; inf when unreadable, so the wall-clock limit applies."""
    total = 0
    found = False
    try:
        names = os.listdir("/proc")
    except OSError:
        return float("inf")
    for name in names:
        if not name.isdigit():
            continue
        try:
            fields = _read_proc("/proc/" + name + "/stat").rpartition(b")")[2].split()
            if int(fields[3]) == sid:
                total += int(fields[11]) + int(fields[12])
                found = True
        except (OSError, ValueError, IndexError):
            continue
    return total / _CLK_TCK if found else float("inf")


def _tmpfs_used(path="/tmp"):
    """(bytes, inodes) in use on the filesystem holding `path`."""
    try:
        v = os.statvfs(path)
    except OSError:
        return (0, 0)
    return ((v.f_blocks - v.f_bfree) * v.f_frsize, v.f_files - v.f_ffree)


def _usage(path):
    """Bytes a folder takes on disk (allocated blocks, so sparse files count
    what they use); more than the limit when it holds more than DISK_ENTRIES
    entries (inodes are disk too, and counting them must stay cheap)."""
    total = 0
    entries = 0
    stack = [path]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for e in it:
                entries += 1
                if entries > DISK_ENTRIES:
                    return DISK_LIMIT + 1
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += st.st_blocks * 512
                if stat.S_ISDIR(st.st_mode):
                    stack.append(e.path)
    return total


def _proc_cpu(pid):
    """CPU time (user + system) of one process, from /proc, measured here
    rather than reported by the child; 0 when unreadable (then the session's
    total from `_cpu_seconds` and the wall cap still bound the case)."""
    try:
        fields = _read_proc("/proc/%d/stat" % pid).rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / _CLK_TCK
    except (OSError, ValueError, IndexError):
        return 0.0


def _status_outcome(status):
    if status is None:
        return {"kind": "crashed", "exit_code": None, "signal": None}
    if os.WIFSIGNALED(status):
        return {"kind": "crashed", "exit_code": None, "signal": os.WTERMSIG(status)}
    if os.WIFEXITED(status):
        return {"kind": "crashed", "exit_code": os.WEXITSTATUS(status), "signal": None}
    return {"kind": "crashed", "exit_code": None, "signal": None}


class _Run:
    """State of one submission's recording across children."""

    def __init__(self, job):
        self.job = job
        self.source = bytes.fromhex(job["source_hex"])
        # The cases this submission runs: every case, or the job's subset
        # (positions among the visible inputs, and how many of the hidden
        # inputs Rust will send: only the chosen ones).
        chosen = job.get("visible")
        self.chosen = chosen  # the zygote builds the child's cases from these positions
        if chosen is None:
            self.cases = INIT["cases"]
            hidden = INIT.get("hidden_count", 0)
        else:
            every = INIT["cases"]
            if any(type(i) is not int or not 0 <= i < len(every) for i in chosen):
                raise ValueError("a job chose a case that does not exist")
            self.cases = [every[i] for i in chosen]
            hidden = job.get("hidden", 0)
        self.nv = len(self.cases)  # visible cases, run first
        self.n = self.nv + int(hidden)
        # Where each process group ends (see _Run.run): the job's "groups",
        # how many cases each runs, else one group of every case.
        groups = job.get("groups", [self.n] if self.n else [])
        if type(groups) is not list or any(type(g) is not int or g < 1 for g in groups) or sum(groups) != self.n:
            raise ValueError("a job's groups do not make up its cases")
        self.ends = []
        for g in groups:
            self.ends.append((self.ends[-1] if self.ends else 0) + g)
        self.group_start = 0  # where the group running now begins
        self.hidden = None  # the hidden cases' inputs, prepared (marshal bytes); see send_hidden
        self.fetch = _HiddenFetch()  # asking Rust for them, ahead (see _HiddenFetch)
        self.outcomes = [None] * self.n
        self.sent = 0  # outcomes sent to Rust ahead of the answer (see send_part)
        self.output = bytearray()
        self.output_total = 0
        self.reply_bytes = 0
        self.timeout = float(INIT["timeout"])
        self.wall = float(INIT["wall"])
        self.wall_end = _monotonic() + self.wall
        _JOBS[0] += 1
        self.jobdir = _job_folder(_JOBS[0])
        self.failure = None  # the grader's own failure: no outcome is valid
        self.pyc = None  # main.py compiled by this session's first child (hex), for the store
        self.findings = []  # runtime integrity findings (see seen)
        self.answered_child = None  # the child that said "D", not yet reaped (see finish_answered)
        # The worker's last job (Rust stops it after this one): what the
        # submission left needs no removing where the worker's end removes it.
        self.last = job.get("last") is True
        # The submission's folder is watched while cases run, in every tier:
        # under landlock it is the only place it may write (on the host's
        # disk), under bwrap it shares a tmpfs with the worker's scratch.
        self.watch_disk = True
        # Under bwrap /tmp is the worker's own tmpfs, which the supervisor
        # (root without CAP_DAC_OVERRIDE there) measures as a whole.
        self.disk_base = _tmpfs_used() if INIT["tier"] == "bwrap" else None

    def take_output(self, data):
        self.output_total += len(data)
        room = OUTPUT_LIMIT - len(self.output)
        if room > 0:
            self.output += data[:room]

    def budget_timeout(self):
        """The outcome of a case the submission's wall budget ended (or left unrun)."""
        return {"kind": "timeout", "seconds": self.timeout, "submission_budget": self.wall}

    def fill(self, start, outcome, end=None):
        for i in range(start, self.n if end is None else end):
            if self.outcomes[i] is None:
                self.outcomes[i] = dumps(outcome).encode()

    def make_jobdir(self):
        _Run.make_jobdir_for(self.jobdir)

    @staticmethod
    def make_jobdir_for(jobdir):
        """The submission's folder, made by the supervisor for the worker uid
        where it can (root without bwrap: the scratch root is root's);
        otherwise the child makes it."""
        uid = INIT.get("uid")
        if uid is None:
            return
        try:
            os.mkdir(jobdir, 0o700)
        except OSError:
            return
        try:
            os.chown(jobdir, uid, INIT.get("gid", uid))
        except OSError:  # no CAP_CHOWN (bwrap): /tmp is the child's to use
            os.rmdir(jobdir)

    def run(self):
        """Runs each process group (the cases of one checkpoint and
        visibility, see corpus::process_group) in children of its own, in a
        folder of its own emptied of nothing (the one before is reaped as
        after a submission), with a wall budget of its own: what a group
        records never depends on which groups ran before it."""
        self.make_jobdir()
        if self.nv < self.n and not (self.chosen is None and _HIDDEN_ALL[0] is not None):
            self.fetch.ask()
        start = 0
        attempt = 0
        for end in self.ends:
            if start >= self.n:
                break
            if start > 0:
                self.next_group()
            self.group_start = start
            self.wall_end = _monotonic() + self.wall
            while start < end:
                if _monotonic() >= self.wall_end:
                    self.fill(start, self.budget_timeout(), end)
                    start = end
                    break
                start = self.one_child(start, end, attempt)
                attempt += 1

    def next_group(self):
        """A new folder for the next process group, once what the last one
        left (its processes, its folder, the worker uid's files elsewhere)
        is removed as after a submission."""
        _reap(None, self.jobdir)
        _JOBS[0] += 1
        self.jobdir = _job_folder(_JOBS[0])
        self.make_jobdir()
        if self.disk_base is not None:
            self.disk_base = _tmpfs_used()

    def one_child(self, start, end, attempt):
        """Has the zygote fork a child for cases start..end; returns where
        the next child starts."""
        request = {"start": start, "attempt": attempt, "jobdir": self.jobdir, "n": self.n, "visible": self.chosen}
        waiting = _waiting_child(request)
        cpid, res_r, out_r, hid_w, job_w = waiting or _fork_child(request)
        # The job (the source, and its compiled code) goes straight to the
        # child: the zygote never holds it.
        try:
            _write_all(job_w, self.job_bytes(end))
        except OSError:  # the child is gone: it will be judged as such
            pass
        finally:
            os.close(job_w)
        # The zygote (the child's parent) says when it has exited.
        exit_fd = _ZYGOTE.sock.fileno()
        st = {"end": end, "pending": start, "pace": 0, "rate": 0.0, "sandboxed": False, "imported": False, "compiled": False, "finished": False, "bad": False, "all": False, "scanned": 0}
        st["hid_w"] = hid_w  # closed once the hidden inputs are written, or with the child
        st["hidden_left"] = None  # what of them is still to write (see send_hidden)
        if self.nv <= start < self.n:
            self.send_hidden(st)
        # The child's CPU time when its current case (or import) began: for
        # the child forked ahead, what it used before its job (the
        # self-test, main.py compiled ahead) is not the submission's.
        st["cpu"] = _proc_cpu(cpid) if waiting else 0.0
        st["since"] = _monotonic()  # ... and the wall time
        buf = bytearray()
        deadline = min(_monotonic() + self.timeout, self.wall_end)
        next_disk = _monotonic() + DISK_EVERY
        exited = False
        status = None
        failure = None
        res_open = out_open = True
        while True:
            now = _monotonic()
            if now >= deadline:
                if st["finished"]:
                    break
                used = _cpu_seconds(cpid) - st["cpu"]
                cap = min(st["since"] + WALL_FACTOR * self.timeout, self.wall_end)
                if used >= self.timeout * CPU_SHARE or now >= cap:
                    # The submission's wall budget, not the case's own limit,
                    # when it ended the case before the case's limit did.
                    by_budget = used < self.timeout * CPU_SHARE and now >= self.wall_end and self.wall_end < st["since"] + WALL_FACTOR * self.timeout
                    failure = self.budget_timeout() if by_budget else {"kind": "timeout", "seconds": self.timeout}
                    break
                deadline = min(now + max(self.timeout - used, CPU_EVERY), cap)
            fds = [f for f, o in ((res_r, res_open), (out_r, out_open)) if o]
            if exit_fd is not None:
                fds.append(exit_fd)
            if self.fetch.reading():
                fds.append(0)
            if self.watch_disk and now >= next_disk:
                if self.disk_used() > DISK_LIMIT:
                    failure = {"kind": "disk-limit", "bytes": DISK_LIMIT}
                    break
                next_disk = now + DISK_EVERY
            wait = deadline - now
            if self.watch_disk:
                wait = max(min(wait, next_disk - now), 0.0)
            writing = [st["hid_w"]] if st["hidden_left"] is not None else []
            ready, writable, _ = select.select(fds, writing, [], wait)
            if writable:
                self.write_hidden(st)
            if 0 in ready:
                self.fetch.take()
            # More output already waiting: the child is blocked writing it, so
            # it is read again at once, not after a nap (100 MB of print would
            # otherwise take 1,600 naps of wall time).
            output_waiting = False
            if out_r in ready:
                data = self._read(out_r)
                if data == b"":
                    out_open = False
                elif data:
                    self.take_output(data)
                    output_waiting = bool(select.select([out_r], [], [], 0)[0])
            if res_r in ready:
                data = self._read(res_r)
                if data == b"":
                    res_open = False
                elif data:
                    buf += data
                    before = st["pending"]
                    if self.lines(buf, st):
                        now = _monotonic()
                        st["pace"] = st["pending"] - before
                        # Cases a second since the last read that made progress.
                        elapsed = now - st["since"]
                        st["rate"] = st["pace"] / elapsed if elapsed > 0 else 0.0
                        # Once "D" of a worker's last job is in, the answer
                        # holds what a part would: Rust, with nothing else
                        # to do, reads its outcomes at once on every core
                        # (beside a next job, the part is read while it runs).
                        if not (st["finished"] and self.last):
                            self.send_part(st)
                        st["since"] = _monotonic()
                        st["cpu"] = _proc_cpu(cpid)
                        deadline = min(st["since"] + (EXIT_WAIT if st["finished"] else self.timeout), self.wall_end)
            exited = exit_fd in ready
            if st["bad"] or st["all"]:
                break
            if st["finished"] and st["pending"] >= end:
                # Every case answered, and "D", written once the child had
                # flushed its output: the answer needs nothing more from it.
                # It is reaped once the answer is written (finish_answered),
                # while Rust grades, not before; one whose group is not the
                # last, now.
                self._drain_output(out_r)
                self.answered_child = (cpid, res_r, out_r)
                if st["hid_w"] is not None:
                    os.close(st["hid_w"])
                if end < self.n:
                    self.finish_answered()
                return st["pending"]
            if ready and not exited and not st["finished"] and st["hidden_left"] is None and not output_waiting:
                # Let the child get on (see READ_EVERY); its exit ends the
                # wait, and so does its next line once it may be "V", which
                # it then waits on (within twice the cases of the last read).
                nap = min(READ_EVERY, deadline - _monotonic())
                # ... and so does its last line ("D"): the nap ends when, at
                # the pace of the last read, the child has answered every
                # case (the answer waits on "D", its exit comes later).
                if st["rate"] > 0:
                    nap = min(nap, (end - st["pending"]) / st["rate"])
                if nap > 0:
                    near = self.nv < self.n and st["pending"] < self.nv <= st["pending"] + 2 * st["pace"] + PART_CASES
                    self.fetch.nap(exit_fd, _monotonic() + nap, res_r if near else None)
            if exited:
                while True:  # what the child wrote before it ended
                    data = self._read(res_r)
                    if not data:
                        break
                    buf += data
                self.lines(buf, st)
                break
        # A child that finished every case and exited leaves its leftovers to
        # the reaper that runs before the answer; any other is reaped now,
        # before the next child starts (one that does not exit after its last
        # case, say a student's sys.stdout.flush that never returns, too).
        kill = not (st["finished"] and st["pending"] >= end and exited)
        status = self._finish_child(cpid, res_r, out_r, kill=kill)
        if st["hid_w"] is not None:
            os.close(st["hid_w"])
        if failure is not None and failure["kind"] == "disk-limit":
            # Its processes are dead: what they wrote goes before the next
            # child (which would otherwise start over the limit).
            _clear(self.jobdir)
        if st["all"] or self.failure is not None:
            return self.n
        if st["finished"] and not st["bad"]:
            return st["pending"]
        if st["bad"]:
            failure = {"kind": "crashed", "exit_code": None, "signal": None}
        elif failure is None:
            failure = _status_outcome(status)
        if not st["imported"]:
            self.fill(start, failure)
            return self.n
        if st["pending"] >= end:
            # Every case of its group answered (it failed after them, say
            # in a flush that never returned): the next group starts anew.
            return end
        self.outcomes[st["pending"]] = dumps(failure).encode()
        return st["pending"] + 1

    def send_part(self, st):
        """Sends Rust the outcomes from the last part sent up to the case
        the child is on (nothing changes those before it but an import
        error, which ends the job: its answer holds every outcome), once
        they are PART_CASES or more: {"part": first case}, then each outcome
        after a tab, as in the answer."""
        final = st["pending"]
        if st["all"] or final - self.sent < PART_CASES:
            return
        part = self.outcomes[self.sent : final]
        _write_all(1, b"\t".join([b'{"part":%d}' % self.sent] + part) + b"\n")
        self.sent = final

    def job_bytes(self, end):
        """What a child is given on its job pipe: b"<source bytes> <compiled
        bytes, or -1> <end>\n", the source, then its compiled code (none
        until some session has compiled it); it runs cases up to `end`."""
        pyc = self.job.get("pyc_hex")
        pyc = bytes.fromhex(pyc) if pyc is not None else None
        return b"%d %d %d\n" % (len(self.source), -1 if pyc is None else len(pyc), end) + self.source + (pyc or b"")

    def disk_used(self):
        """What the submission has written so far (bytes)."""
        if self.disk_base is not None:
            used, files = _tmpfs_used()
            if files - self.disk_base[1] > DISK_ENTRIES:
                return DISK_LIMIT + 1
            return used - self.disk_base[0]
        return _usage(self.jobdir)

    def send_hidden(self, st):
        """Starts giving the child the hidden cases' inputs (until every
        visible case of the submission is answered, no process of it holds
        them): prepared ahead, or what is left of that done now. The pipe
        does not block: what it does not take now is written as the child
        reads it (see write_hidden), so a child that stops reading (a
        student's thread holding the interpreter lock, say) cannot stall the
        supervisor, whose timeouts then end it."""
        if self.hidden is None:
            self.hidden = _HIDDEN_ALL[0] if self.chosen is None else None
        if self.hidden is None:
            self.hidden = self.fetch.finish()
            if self.chosen is None:  # every hidden case: the same for every job
                _HIDDEN_ALL[0] = self.hidden
        os.set_blocking(st["hid_w"], False)
        st["hidden_left"] = memoryview(self.hidden)
        self.write_hidden(st)

    @staticmethod
    def write_hidden(st):
        """Writes what the child's pipe takes of the hidden inputs still to
        write; closes it once they are all written (or the child is gone)."""
        left = st["hidden_left"]
        try:
            while left:
                left = left[_write(st["hid_w"], left[:PIPE_BYTES]) :]
        except BlockingIOError:
            st["hidden_left"] = left
            return
        except OSError:  # the child is gone: it will be judged as such
            pass
        st["hidden_left"] = None
        os.close(st["hid_w"])
        st["hid_w"] = None

    @staticmethod
    def _read(fd):
        try:
            return _read(fd, 1 << 16)  # a pipe holds 64 KiB
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def lines(self, buf, st):
        """Consumes the complete lines in buf; True when progress was made."""
        if len(buf) <= LINE_LIMIT and buf.find(b"\n", st["scanned"]) < 0:
            # No line complete yet: only what arrived since is searched next
            # time (a long line, read 64 KiB at a time, costs one pass).
            st["scanned"] = len(buf)
            return False
        st["scanned"] = 0
        progress = st["imported"] and not (st["finished"] or st["bad"] or st["all"]) and self.case_lines(buf, st)
        while not (st["finished"] or st["bad"] or st["all"]):
            nl = buf.find(b"\n")
            if nl < 0:
                if len(buf) > LINE_LIMIT:
                    st["bad"] = True
                    self.seen("result-channel", "more than %d MiB on the result channel without a line end (%s)" % (LINE_LIMIT >> 20, self.where(st)))
                break
            line = bytes(buf[:nl])
            del buf[: nl + 1]
            verdict = self.line(line, st)
            progress = True
            if verdict == "bad":
                st["bad"] = True
                self.seen("result-channel", "a line the harness did not write on the result channel (%s)" % self.where(st))
            elif verdict == "sandboxed":
                st["sandboxed"] = True
            elif verdict == "visible-done":
                self.send_hidden(st)
            elif verdict == "sandbox-failed":
                st["all"] = True
            elif verdict == "imported":
                st["imported"] = True
            elif verdict == "compiled":
                pass
            elif verdict == "import-error":
                st["all"] = True
            elif verdict == "case":
                st["pending"] += 1
            else:
                st["finished"] = True
        return progress

    def case_lines(self, buf, st):
        """The common case, many outcomes at once: consumes the leading run
        of "C <pending> <outcome>" lines that `line` would take as cases,
        judged exactly as it judges them, in one pass over the complete
        lines in buf (not a copy and a shift of buf per line); anything
        else is left to `line`. True when it consumed any."""
        pending = st["pending"]
        n = st["end"]
        if pending >= n:
            return False
        prefixes = _case_prefixes(self.n)
        last = buf.rfind(b"\n")
        if last < 0 or not buf.startswith(prefixes[pending]):
            return False
        with memoryview(buf) as view:
            data = bytes(view[: last + 1])  # the complete lines, copied once
        # Whether every one is printable ASCII, in one pass (then no line
        # needs a check of its own).
        printable = not data.translate(None, _PRINTABLE_NL)
        pos = 0
        outcomes = self.outcomes
        reply_bytes = self.reply_bytes
        while pending < n:
            prefix = prefixes[pending]
            if not data.startswith(prefix, pos):
                break
            nl = data.find(b"\n", pos)
            body = data[pos + len(prefix) : nl]
            if not body or (not printable and body.translate(None, _PRINTABLE)):
                break
            if reply_bytes + len(body) > REPLY_LIMIT:
                body = b'{"kind":"output-too-large"}'
            reply_bytes += len(body)
            outcomes[pending] = body
            pending += 1
            pos = nl + 1
        if not pos:
            return False
        del buf[:pos]
        st["pending"] = pending
        self.reply_bytes = reply_bytes
        return True

    def _drain_output(self, out_r):
        """What the output pipe holds now (bounded), without waiting."""
        for _ in range(DRAIN_READS):
            if not select.select([out_r], [], [], 0)[0]:
                return
            data = self._read(out_r)
            if not data:
                return
            self.take_output(data)

    def finish_answered(self):
        """Reaps the child that answered every case (see one_child), once
        the answer is written: it has EXIT_WAIT to exit, as after any "D",
        and is killed otherwise; then whatever it left is killed."""
        if self.answered_child is None:
            return
        cpid, res_r, out_r = self.answered_child
        self.answered_child = None
        exited = bool(select.select([_ZYGOTE.sock.fileno()], [], [], EXIT_WAIT)[0])
        self._finish_child(cpid, res_r, out_r, kill=not exited)

    def _finish_child(self, cpid, res_r, out_r, kill=True):
        if kill:
            _reap(cpid, None)
        status = _ZYGOTE.exit_status()
        # Reaped only now (its group signalled above while it was, at most,
        # a zombie); the zygote then kills whatever it left (their subreaper).
        _ZYGOTE.release()
        # Whatever was still in the output pipe (bounded: a leftover process
        # may still be writing).
        for _ in range(DRAIN_READS):
            try:
                data = _read(out_r, 1 << 20)
            except OSError:
                break
            if not data:
                break
            self.take_output(data)
        for fd in (res_r, out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        return status

    def line(self, line, st):
        """Judges one result line from the child (bytes, never decoded:
        outcome texts are passed on to Rust as they are, which parses and
        validates each, since a student can write anything into this pipe)."""
        pending, imported = st["pending"], st["imported"]
        if line == b"D" and imported:
            return "done"
        if line == b"R" and imported:
            return "restart"
        if line == b"V" and imported and pending == self.nv < self.n and st["hid_w"] is not None and st["hidden_left"] is None:
            return "visible-done"
        if not st["sandboxed"]:
            # Only harness code has run in the child so far.
            if line == b"S":
                return "sandboxed"
            if line.startswith(b"X "):
                try:
                    why = _loads(line[2:])
                except ValueError:
                    why = None
                self.failure = "the child could not enter the sandbox: " + _text(why)
                return "sandbox-failed"
            return "bad"
        if line == b"I" and not imported:
            return "imported"
        if line[:1] == b"K" and line[1:2] in (b"", b" ") and not imported and not st["compiled"] and self.job.get("pyc_hex") is None:
            # main.py compiled, before any of its code ran (see _bytecode):
            # kept for this submission's later children and for the store.
            st["compiled"] = True
            body = line[2:]
            if len(body) > 2 * PYC_LIMIT or len(body) % 2 or body.translate(None, b"0123456789abcdef"):
                return "bad"
            if body:
                self.job["pyc_hex"] = self.pyc = body.decode("ascii")
            return "compiled"
        # What the harness writes is printable ASCII (dumps escapes the
        # rest), and no tab: Rust reads the outcomes separated by tabs.
        if line.startswith(b"E ") and not imported:
            # An import error the harness wrote is short; a longer one would
            # be copied into every case's outcome.
            body = line[2:]
            if len(body) > IMPORT_ERROR_BYTES or body.translate(None, _PRINTABLE):
                return "bad"
            # From its group on (the groups before imported it and ran).
            for i in range(self.group_start, self.n):
                self.outcomes[i] = body
            self.sent = min(self.sent, self.group_start)  # the answer holds those it changed
            return "import-error"
        if line.startswith(b"C ") and imported:
            head, _, body = line[2:].partition(b" ")
            if pending >= st["end"] or head != b"%d" % pending or not body or body.translate(None, _PRINTABLE):
                return "bad"
            if self.reply_bytes + len(body) > REPLY_LIMIT:
                body = b'{"kind":"output-too-large"}'
            self.reply_bytes += len(body)
            self.outcomes[pending] = body
            return "case"
        return "bad"

    def seen(self, kind, what):
        """A runtime integrity finding: what only code reaching into the
        harness does (the supervisor sees the child's result channel, which
        student code shares its process with). Capped."""
        if len(self.findings) < 20:
            self.findings.append({"kind": kind, "what": what})

    def where(self, st):
        if not st["imported"]:
            return "while main.py was imported"
        return "during case %d of %d" % (st["pending"] + 1, self.n)

    def response(self):
        if self.failure is not None:
            return dumps({"n": 0, "output": "", "error": _text(self.failure)}).encode("utf-8")
        crashed = b'{"kind":"crashed","exit_code":null,"signal":null}'
        output = bytes(self.output).decode("utf-8", "replace")
        if self.output_total > len(self.output):
            output += "\n[... %d more bytes of output cut]" % (self.output_total - len(self.output))
        head = {"n": self.n, "first": self.sent, "output": _text(output, OUTPUT_CHARS), "integrity": self.findings}
        if self.pyc is not None:
            head["pyc"] = self.pyc
        head = dumps(head)
        # The outcomes not sent in parts follow the head, each after a tab,
        # as the child wrote them (printable ASCII: no tab, no line end);
        # one that is the very outcome before it (an import error, copied
        # into every case) as "=", so the answer grows by two bytes a case,
        # not by the outcome's length (runner::protocol reads it back).
        parts = [head.encode("utf-8")]
        last = None
        for o in self.outcomes[self.sent :]:
            if o is None:
                o = crashed
            parts.append(b"=" if o is last and len(o) > 1 else o)
            last = o
        return b"\t".join(parts)


class _HiddenFetch:
    """One job's hidden inputs from Rust (the line answering
    {"need":"hidden"}: the hex of their list's marshal bytes), checked as
    send_hidden gives them to a child: asked for as the job starts (when
    the supervisor does not hold them already), then read and checked a
    case at a time in the naps the supervisor takes anyway (`nap`), so that
    no read of a child's results waits longer for it; `finish` does what
    is left when a child needs them. The supervisor holds them as it holds
    every job's once asked for; no child has them before it has answered
    every visible case. A line that is not such a list, or a case that
    does not check, is left to `finish`, which raises what checking it
    whole raises."""

    def __init__(self):
        self.asked = False
        self.buf = None  # what has arrived of the line (bytearray) until it is whole
        self.data = None  # the whole line's bytes (None: Rust's end of file, or not hex)
        self.cases = None  # ... as the list of cases, while they are checked one at a time
        self.at = 0  # the next case to check
        self.done = False  # every case is checked, or the rest is finish's
        self.failed = False  # something did not check: finish raises it

    def ask(self):
        _write_all(1, b'{"need":"hidden"}\n')
        self.asked = True
        self.buf = bytearray()

    def reading(self):
        """Whether more of Rust's answer is to come (read it when fd 0 is
        readable: `take`)."""
        return self.buf is not None

    def take(self):
        """Reads what Rust has written of its answer."""
        chunk = _read(0, 1 << 20)
        if chunk:
            self.buf += chunk
        if not chunk or self.buf.endswith(b"\n"):
            whole = bytes(self.buf)
            self.buf = None
            self._begin(whole[:-1] if whole.endswith(b"\n") else None)

    def _begin(self, line):
        """Starts checking the cases one at a time."""
        self.done = True
        try:
            self.data = bytes.fromhex(line.decode("ascii"))
            self.cases = _case_list(self.data)
        except BaseException:
            self.failed = True
            return
        self.at = 0
        self.done = not self.cases

    def _step(self):
        """Checks the next case."""
        try:
            _checked_case(self.cases[self.at])
        except BaseException:
            self.failed = True
            self.done = True
            return
        self.at += 1
        self.done = self.at == len(self.cases)

    def nap(self, exit_fd, until, wake=None):
        """The supervisor's nap until `until` (or the child's exit, or `wake`
        readable when given), spent on the hidden inputs as far as they are
        to be fetched, then on the visible ones' check (_VISIBLE)."""
        while True:
            now = _monotonic()
            if now >= until:
                return
            watch = [exit_fd, 0] if self.reading() else [exit_fd]
            if wake is not None:
                watch.append(wake)
            work = self.cases is not None and not self.done
            visible = not work and _VISIBLE.left()
            ready = select.select(watch, [], [], 0 if work or visible else until - now)[0]
            if exit_fd in ready or (wake is not None and wake in ready):
                return
            if 0 in ready:
                self.take()
            elif work:
                self._step()
            elif visible:
                _VISIBLE.step()

    def finish(self):
        """The hidden inputs, checked (marshal bytes of their list): asked
        for, read and checked now as far as that is still to do."""
        if not self.asked:
            self.ask()
        while self.reading():
            self.take()
        while not self.done:
            self._step()
        if self.failed:
            if self.data is None:
                raise ValueError("the hidden inputs' line is not hex")
            for case in _case_list(self.data):
                _checked_case(case)
        return self.data

    def drain(self):
        """Reads the rest of an answer asked for (before the job is answered:
        Rust's next line must be the next job)."""
        try:
            while self.reading():
                self.take()
        except OSError:
            self.buf = None


class _VisibleCheck:
    """The visible cases' inputs checked as _checked_case checks them (the
    zygote checked only their shape, so that no submission waits for it):
    a case at a time in the supervisor's naps, what is left before its
    first answer (`finish`). One that does not check makes that answer, and
    every later one, the grader's failure: the outcomes of a call on
    inputs that are not what Rust meant are never answered."""

    def __init__(self):
        self.at = 0  # the next case to check
        self.failed = None  # why one did not check

    def left(self):
        return self.failed is None and self.at < len(INIT["cases"])

    def step(self):
        try:
            _checked_case(INIT["cases"][self.at])
        except BaseException as e:
            self.failed = "case input %d: %s" % (self.at, e)
        self.at += 1

    def until_readable(self, fd):
        """Checks cases until `fd` is readable or none is left: the
        supervisor's wait for its first job (while the first child tests
        the sandbox, and Rust judges what it found) has a core to itself,
        which the cases' run does not."""
        while self.left() and not select.select([fd], [], [], 0)[0]:
            # 16 cases (~2 µs each) between two looks: a job waits ~40 µs
            # at most for the look that finds it.
            for _ in range(16):
                if not self.left():
                    break
                self.step()

    def finish(self):
        while self.left():
            self.step()
        if self.failed is not None:
            raise ValueError(self.failed)


_VISIBLE = _VisibleCheck()


def _read_hidden(fd):
    """The hidden inputs the supervisor writes on `fd` (all of it, up to the
    end it closes): marshal bytes of a list of prepared inputs."""
    buf = bytearray()
    while True:
        chunk = _read(fd, 1 << 20)
        if not chunk:
            return bytes(buf) if buf else _marshal_dumps([], 2)
        buf += chunk


_CASE_PREFIXES = []  # b"C <i> " for every i up to the most cases a job has had


def _case_prefixes(n):
    """The heads of case lines 0..n-1, made once in the supervisor's life."""
    if len(_CASE_PREFIXES) < n:
        _CASE_PREFIXES.extend(b"C %d " % i for i in range(len(_CASE_PREFIXES), n))
    return _CASE_PREFIXES


class _ZygoteLink:
    """The supervisor's end of its socket to the zygote, which forks every
    child (so a child starts from the zygote's memory, which holds no
    submission's source, outcomes or hidden inputs) and is their parent
    and subreaper."""

    def __init__(self, sock):
        self.sock = sock

    def fork_child(self, request, fds):
        """Sends the request and the child's ends of its pipes; returns its pid."""
        self.sock.sendmsg([dumps(request).encode("ascii")], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        answer = self.sock.recv(64)
        if not answer.startswith(b"pid "):
            raise OSError("the zygote forked no child: %r" % answer[:64])
        return int(answer[4:])

    def exit_status(self):
        """Once the child has exited: its wait status. It stays a zombie
        (its pid, and so its process group's id, cannot be reused) until
        `release`."""
        answer = self.sock.recv(64)
        if not answer.startswith(b"exit "):
            raise OSError("the zygote did not say how the child ended: %r" % answer[:64])
        return int(answer[5:])

    def release(self):
        """Has the zygote reap the exited child and kill whatever it left."""
        self.sock.send(b"reap")
        answer = self.sock.recv(64)
        if not answer.startswith(b"done"):
            raise OSError("the zygote did not reap the child: %r" % answer[:64])
        if answer == b"done dirty":
            # Something outlived its kill: /proc is searched from now on.
            _DIRTY[0] = True


def _fork_child(request):
    """Has the zygote fork a child for `request` (see _child), with the
    child's ends of four new pipes; returns (its pid, and the supervisor's
    ends: results, output, hidden inputs, job)."""
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    hid_r, hid_w = os.pipe()
    job_r, job_w = os.pipe()
    try:
        cpid = _ZYGOTE.fork_child(request, [res_w, out_w, hid_r, job_r])
    except BaseException:
        for fd in (res_r, out_r, hid_w, job_w):
            os.close(fd)
        raise
    finally:
        for fd in (res_w, out_w, hid_r, job_r):
            os.close(fd)
    return _child_ends(cpid, res_r, out_r, hid_w, job_w)


def _child_ends(cpid, res_r, out_r, hid_w, job_w):
    """The child `cpid` and the supervisor's ends of its pipes, set up for
    the supervisor's reads and writes."""
    os.set_blocking(res_r, False)
    os.set_blocking(out_r, False)
    for fd in (res_r, out_r, hid_w, job_w):
        try:
            fcntl.fcntl(fd, 1031, PIPE_BYTES)  # F_SETPIPE_SZ
        except OSError:
            pass
    return cpid, res_r, out_r, hid_w, job_w


# The first job's first child when it runs every case: the zygote's
# first child (_first_child), which did the sandbox self-test and waits in
# its sandbox for that job. [its request, what _fork_child would have
# returned], or None.
_WAITING = [None]


def _adopt_first():
    """Takes the zygote's first child as the child the first job most
    likely starts with (every case, from the first): nothing of a
    submission is in it until its job is written to it, and it is the
    zygote's like any other (see _child)."""
    request, cpid, res_r, out_r, hid_w, job_w = _FIRST[0]
    _FIRST[0] = None
    _WAITING[0] = [request, _child_ends(cpid, res_r, out_r, hid_w, job_w)]


def _waiting_child(request):
    """The child forked ahead when it was forked for exactly `request`
    (then taken), else None. One forked for another is ended first: its
    job pipe closed (it reads no job, says so on its result pipe and
    exits), its tree killed and reaped; only then, when nothing of it can
    still make anything there (it may not have reached its sandbox when
    killed), its folder is removed (and made again when `request` runs in
    it)."""
    waiting, _WAITING[0] = _WAITING[0], None
    if waiting is None:
        return None
    if waiting[0] == request:
        return waiting[1]
    cpid, res_r, out_r, hid_w, job_w = waiting[1]
    for fd in (job_w, hid_w):
        os.close(fd)
    _reap(cpid, None)
    _ZYGOTE.exit_status()
    _ZYGOTE.release()
    for fd in (res_r, out_r):
        os.close(fd)
    _reap(None, waiting[0]["jobdir"], leftovers=False)
    if request["jobdir"] == waiting[0]["jobdir"]:
        _Run.make_jobdir_for(request["jobdir"])
    return None


def _job_folder(k):
    """The folder of this worker's k-th job (from 1), named after its
    zygote (which makes the first: _first_child; the harness's own checks
    run a supervisor without one)."""
    return os.path.join(INIT["scratch"], "j%d-%d" % (_ZYGOTE_PID[0] or _getpid(), k))


_ZYGOTE = None  # the supervisor's _ZygoteLink
_JOBS = [0]  # submissions this supervisor has run (their folders' names)


def _supervise(sock):
    """The supervisor: one long-lived process that reads jobs from Rust and
    answers each, having the zygote fork the children. Children never start
    from its memory, so it may hold what submissions leave behind; it is not
    dumpable, so no process of the worker uid can read that memory."""
    global _ZYGOTE
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _name(b"ag-supervisor")
        try:
            _libc().prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
        except BaseException:
            pass
        _ZYGOTE = _ZygoteLink(sock)
        _adopt_first()
        _VISIBLE.until_readable(0)
        while True:
            cmd = _read_line(0, one_byte=True)
            if cmd is None:
                return
            if cmd != b"job":
                raise SystemExit("harness: unknown command %r" % cmd)
            line = _read_line(0)
            if line is None:
                return
            run = None
            try:
                run = _Run(_loads(line))
                run.run()
                run.fetch.drain()
                _VISIBLE.finish()
                answer = run.response()
            except BaseException as e:
                answer = dumps({"n": 0, "output": "", "error": _text("harness: %r" % (e,))}).encode("utf-8")
                if run is not None:
                    run.fetch.drain()
            _write_all(1, answer + b"\n")
            # What the submission left (its last child, processes, files) is
            # removed while Rust grades it, and before the next job is read:
            # nothing of it changes the answer. A reap that raises ends the
            # supervisor (Rust then starts a fresh worker, which reaps at its
            # start).
            if run is not None:
                run.finish_answered()
                if run.last and (INIT["tier"] == "bwrap" or (INIT["tier"] == "landlock" and INIT.get("uid") is not None)):
                    # Nothing of the submission can be but in its folder,
                    # which goes with the worker's scratch (under bwrap all
                    # is the sandbox's; under landlock it may write nowhere
                    # else and makes no IPC object, and as root Rust removes
                    # the scratch whatever modes it set: without a uid of its
                    # own a folder it made unreadable would stop that, so it
                    # is cleared here then), and its processes are killed:
                    # ending now leaves Rust's grading a core.
                    return
                _reap(None, run.jobdir)
            run = line = answer = None
    finally:
        _exit(0)
