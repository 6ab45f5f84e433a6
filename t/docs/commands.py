#!/usr/bin/env python3
"""The project's own commands in the examples of the operator's documents.

    t/docs/commands.py FILE...

prints one line per command found, "FILE:LINE<TAB>COMMAND", in document
order. An example is what a reader copies: in text and Markdown files a
line indented by four spaces or more (an indented code block, or one
inside a list item's text); in a manual page a line between .nf and .fi,
with troff's escapes undone. A line ending in a backslash goes on in the
next. A command is an example whose first word is one of the project's
tools (COMMANDS below), `make run`, or `mkdir` (a directory the reader is
asked to make for them); apt, a2enmod, systemctl, curl and the like belong
to the system and are not run. So the commands come from the documents
themselves: editing an example edits the test.
"""

import re
import sys

# first words that make an example one of ours
COMMANDS = (
    'mod-placement-manage',
    'placement-manage',     # the tool by upstream's names
    'placement-status',
    'scripts/db-init.sh',
    '/usr/share/mod-placement/scripts/db-init.sh',
)


def troff_text(line):
    """A line of a manual page as the reader sees it."""
    return line.replace('\\-', '-').replace('\\e', '\\').replace('\\(aq', "'")


def examples(path):
    """(line number, text) of each example line of the document."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    manual = re.search(r'\.[1-8]$', path) is not None
    inside = False
    for no, line in enumerate(lines, 1):
        if manual:
            if line.startswith('.nf'):
                inside = True
            elif line.startswith('.fi'):
                inside = False
            elif inside and not line.startswith('.'):
                yield no, troff_text(line)
        elif line.startswith('    ') or line.startswith('\t'):
            yield no, line.strip()


def commands(path):
    """(line number, command) of each command of the document."""
    pending = None
    for no, text in examples(path):
        if pending is not None:
            start, head = pending
            text = head + ' ' + text
        else:
            start = no
        if text.endswith('\\'):
            pending = (start, text[:-1].rstrip())
            continue
        pending = None
        words = text.split()
        if words and (words[0] in COMMANDS or words[0] == 'mkdir' or
                      words[:2] == ['make', 'run']):
            yield start, text


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: commands.py FILE...\n')
        return 2
    for path in argv[1:]:
        try:
            found = list(commands(path))
        except OSError as e:
            sys.stderr.write('commands.py: %s: %s\n' % (path, e.strerror))
            return 1
        for no, cmd in found:
            print('%s:%d\t%s' % (path, no, cmd))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
