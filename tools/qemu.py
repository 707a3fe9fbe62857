"""tools/qemu.py - boot Orthos in QEMU from Python (stdlib only).

Used by the test runner, the grader and the benchmarks. Every boot has a
hard timeout and is killed by its own PID; the serial console is captured;
QEMU's isa-debug-exit device turns the guest's poweroff(code) into QEMU's
exit status (code << 1) | 1."""
import os
import re
import select
import shutil
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
KERNEL = os.path.join(BUILD, "orthos.elf")
INITRD = os.path.join(BUILD, "initrd.tar")
ISO = os.path.join(BUILD, "orthos.iso")
QEMU = "qemu-system-i386"
PANIC_STATUS = (0x7F << 1) | 1


class Boot:
    """The result of one guest run."""

    def __init__(self, output, status, timed_out, seconds):
        self.output = output          # everything the serial port printed
        self.status = status          # QEMU's exit status, None if killed
        self.timed_out = timed_out
        self.seconds = seconds

    @property
    def guest_code(self):
        """The code the guest passed to poweroff(), or None."""
        if self.status is None or self.status & 1 == 0:
            return None
        return self.status >> 1


def base_args(memory="128M"):
    """The machine every test and benchmark boots: no window, so no VGA card,
    and no network card (Orthos drives neither; each costs the BIOS time).
    Nor anything else Orthos does not use: no default devices (floppy,
    parallel port, empty CD drive), no ACPI (Orthos powers off through
    isa-debug-exit here; its PIIX4 PM write is for other machines), no HPET,
    SMBus or VMware port. QEMU then starts with 13 % fewer page faults
    (5,890 to 5,140 to the prompt) and the firmware builds no ACPI tables
    (doc/decisions.md, "Performance, eleventh round")."""
    return [QEMU, "-m", memory, "-no-reboot", "-display", "none", "-vga", "none",
            "-nic", "none", "-nodefaults",
            "-machine", "pc,acpi=off,hpet=off,smbus=off,vmport=off",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            "-serial", "stdio", "-monitor", "none"]


def disk_args(disks):
    """ATA disks: a list of image paths, in order (hd0, hd1, ...)."""
    args = []
    for i, path in enumerate(disks or []):
        if path:
            args += ["-drive", "file=%s,format=raw,if=ide,index=%d" % (path, i)]
    return args


_firmware = None


def kernel_firmware():
    """The firmware for -kernel boots: qboot, QEMU's own minimal one, when
    this QEMU has it (it ships with QEMU; Debian's qemu-system-data, Homebrew's
    qemu), else QEMU's default, SeaBIOS. qboot jumps to the kernel about
    50 ms sooner: it scans no option ROMs, probes no drives and assigns no PCI
    addresses (the ATA driver gives the IDE controller's itself). Without a
    window only: it sets up no VGA text mode. GRUB's ISO needs SeaBIOS's disk
    services and keeps it (doc/decisions.md, "the tests' firmware")."""
    global _firmware
    if _firmware is None:
        try:
            dirs = subprocess.run([QEMU, "-L", "help"], capture_output=True, text=True,
                                  timeout=30).stdout.split()
        except (OSError, subprocess.SubprocessError):
            dirs = []
        _firmware = ["-bios", "qboot.rom"] if any(
            os.path.exists(os.path.join(d, "qboot.rom")) for d in dirs) else []
    return _firmware


def kernel_args(cmdline, disks=None, memory="128M", build=BUILD, firmware=None):
    """A direct -kernel boot (what tests use: no GRUB, ~0.05 s to the kernel).
    `build` is the build folder to boot from (another tree's, for handouts);
    `firmware`: QEMU's arguments for it, kernel_firmware()'s if None."""
    if firmware is None:
        firmware = kernel_firmware()
    return base_args(memory) + firmware + ["-kernel", os.path.join(build, "orthos.elf"),
                                "-initrd", os.path.join(build, "initrd.tar"),
                                "-append", cmdline] + disk_args(disks)


def run(args, timeout=60, until=None, stdin_script=None, stdin_delay=0.0, chunks=None):
    """Run QEMU with args. Stops when it exits, when the output matches the
    regex `until` (then QEMU is killed), or after `timeout` seconds.
    stdin_script: bytes typed on the serial console once the regex
    `stdin_delay`-seconds after boot (for shell tests). chunks: a list to
    which (time.monotonic(), bytes) is appended as each piece of output
    arrives (tools/bench.py times the guest's clock with it)."""
    start = time.monotonic()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE if stdin_script else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = bytearray()
    pattern = re.compile(until) if until else None
    timed_out = False
    try:
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        fed = stdin_script is None
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([fd], [], [], min(left, 0.2))
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                if chunks is not None:
                    chunks.append((time.monotonic(), chunk))
                out += chunk
                if pattern and pattern.search(out.decode("utf-8", "replace")):
                    break
            elif proc.poll() is not None:
                break
            if not fed and time.monotonic() - start >= stdin_delay:
                proc.stdin.write(stdin_script)
                proc.stdin.flush()
                fed = True
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        rest = proc.stdout.read() if proc.stdout else b""
        if rest:
            out += rest
    status = None if (timed_out or pattern) and proc.returncode < 0 else proc.returncode
    text = out.decode("utf-8", "replace").replace("\r\n", "\n")
    return Boot(text, status, timed_out, time.monotonic() - start)


def have_qemu():
    return shutil.which(QEMU) is not None


class Session:
    """An interactive guest: type lines on the serial console and wait for
    what comes back, like a student at the shell. Always use as a context
    manager (`with qemu.Session(args) as s:`) so the guest is killed."""

    def __init__(self, args, timeout=60):
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.deadline = time.monotonic() + timeout
        self.output = ""            # everything so far
        self.mark = 0               # expect() searches from here

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def _read(self, wait):
        ready, _, _ = select.select([self.proc.stdout], [], [], wait)
        if ready:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if chunk:
                self.output += chunk.decode("utf-8", "replace").replace("\r", "")
                return True
        return False

    def expect(self, regex, timeout=15):
        """Wait until regex appears after the last match; the match, or None."""
        pattern = re.compile(regex, re.M)
        end = min(time.monotonic() + timeout, self.deadline)
        while True:
            m = pattern.search(self.output, self.mark)
            if m:
                self.mark = m.end()
                return m
            left = end - time.monotonic()
            if left <= 0 or self.proc.poll() is not None and not self._read(0):
                return None
            self._read(min(left, 0.2))

    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def run(self, line, prompt=r"\$ $", timeout=15):
        """Type a command line, wait for the next prompt; the text in between."""
        start = len(self.output)
        self.send(line + "\n")
        m = self.expect(prompt, timeout)
        return None if m is None else self.output[start:m.start()]
