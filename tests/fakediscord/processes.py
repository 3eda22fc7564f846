"""The console and the bot as separate processes, for the crash and two-process tests."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
LAUNCH = Path(__file__).resolve().parent / "launch.py"


# A run started in the background has Ctrl-C ignored, and its children would inherit that; the tests send
# Ctrl-C as a terminal does, so the children get the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def environment(db_path: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    # PYTHONFAULTHANDLER: SIGABRT dumps every thread's stack (see Process.interrupt)
    env.update(ROUNDHOUSE_DB=db_path, ROUNDHOUSE_PICTURES="0", PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1", **extra)
    return env


class Process:
    """A child process whose stdout lines are collected by a thread (reads never block the test)."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: str | Path) -> None:
        self.proc = subprocess.Popen(args, env=env, cwd=str(cwd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    @staticmethod
    def _read(stream, out: queue.Queue) -> None:
        for line in stream:
            out.put(line.rstrip("\n"))
        out.put(None)

    def _drain(self) -> None:
        for line in self.proc.stderr:  # type: ignore[union-attr]
            self.stderr.append(line)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, done, timeout: float = 30) -> list[str]:
        """Lines up to and including the first for which done(line) holds."""
        out: list[str] = []
        end = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no answer in {timeout} s; got {out}; stderr {''.join(self.stderr)[-2000:]}")\
                    from None
            if line is None:
                raise EOFError(f"the process ended; got {out}; stderr {''.join(self.stderr)[-2000:]}")
            out.append(line)
            if done(line):
                return out

    def kill(self) -> None:
        """kill -9: no clean-up of any kind."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def interrupt(self, timeout: float = 60) -> int:
        """Ctrl-C; the exit status."""
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:  # a hang: the faulthandler's dump of every thread says where
            self.proc.send_signal(signal.SIGABRT)
            self.proc.wait(10)
            time.sleep(0.5)  # the stderr reader catches up
            raise AssertionError(f"no stop {timeout} s after Ctrl-C; threads: {''.join(self.stderr)[-6000:]}") \
                from None

    def wait(self, timeout: float = 30) -> int:
        return self.proc.wait(timeout)


def console(db_path: str, cwd: str | Path) -> Process:
    return Process([sys.executable, "-m", "bot"], environment(db_path), cwd)


def bot(db_path: str, cwd: str | Path, fake_base: str, guild_id: int) -> Process:
    env = environment(db_path, DISCORD_TOKEN="fake-token", FAKE_DISCORD=fake_base,
                      ROUNDHOUSE_DEV_GUILD=str(guild_id), ROUNDHOUSE_REMINDER_CHECK="3600")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return Process([sys.executable, str(LAUNCH)], env, cwd)
