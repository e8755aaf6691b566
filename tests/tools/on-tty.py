#!/usr/bin/env python3
"""on-tty.py COLS FDS CMD [ARG...]: run CMD with the file descriptors FDS
("1", "2" or "1,2") on a pseudo-terminal COLS columns wide (TIOCSWINSZ),
the others inherited; what CMD writes to the terminal is copied to this
script's standard output (raw: "\\r" and escapes kept). Exits with CMD's
status. The tests' way to see what a tool does on a terminal, where
script(1) would also put standard input and every output on it."""
import fcntl
import os
import struct
import subprocess
import sys
import termios


def main():
    cols, fds, cmd = int(sys.argv[1]), {int(f) for f in sys.argv[2].split(",")}, sys.argv[3:]
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    # no "\n" -> "\r\n" translation: the bytes as the tool wrote them
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    proc = subprocess.Popen(cmd, stdout=slave if 1 in fds else None,
                            stderr=slave if 2 in fds else None, env=env)
    os.close(slave)
    out = sys.stdout.buffer
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the terminal
            break
        if not data:
            break
        out.write(data)
    out.flush()
    sys.exit(proc.wait())


if __name__ == "__main__":
    main()
