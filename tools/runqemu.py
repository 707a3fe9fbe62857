#!/usr/bin/env python3
"""tools/runqemu.py QEMU [ARG...] - run QEMU for `make qemu`, `qemu-nox` and
`qemu-gdb`, and end the way make understands.

QEMU's isa-debug-exit device turns the guest's poweroff(code) into QEMU's
exit status (code << 1) | 1, so a clean `poweroff` is status 1 and make
would say `*** Error 1`. Here: QEMU quitting (Ctrl-a x, the window closed)
or the guest powering off with code 0 is success (0); a guest code N > 0
is reported and becomes our status N; QEMU's own failure (it says why on
stderr, e.g. a missing file, and also exits 1) stays a failure. The
terminal (stdin, stdout) is QEMU's; stderr passes through as it comes."""
import os
import signal
import subprocess
import sys
import threading


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit("usage: runqemu.py QEMU [ARG...]")
    name = os.path.basename(args[0])
    complained = []

    def relay(stream):
        for line in iter(stream.readline, b""):
            if line.startswith(name.encode() + b":"):
                complained.append(line)
            sys.stderr.buffer.write(line)
            sys.stderr.buffer.flush()

    try:
        proc = subprocess.Popen(args, stderr=subprocess.PIPE)
    except OSError as e:
        sys.exit("runqemu: cannot run %s: %s" % (args[0], e.strerror))
    # Ctrl-C is the guest's (the serial console is raw); if one reaches us
    # anyway, QEMU gets it too and decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    reader = threading.Thread(target=relay, args=(proc.stderr,), daemon=True)
    reader.start()
    status = proc.wait()
    reader.join(2)
    if status == 0:
        return 0                                # quit from the monitor or the window
    if status < 0 or status & 1 == 0 or (status == 1 and complained):
        print("runqemu: %s failed (%s)" % (name, "signal %d" % -status if status < 0
                                             else "status %d" % status), file=sys.stderr)
        return 1 if status < 0 else status
    code = status >> 1
    if code == 0:
        return 0                                # poweroff
    if code == 0x7F:
        print("runqemu: the kernel panicked (status %d)" % code, file=sys.stderr)
    else:
        print("runqemu: the guest powered off with status %d" % code, file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
