"""What the repository hygiene tests (repo_refs_test.py, records_test.py) share:
finding the lines of a file that match a list of (compiled regular
expression, reason) pairs.  Standard library only."""
import os


def scan(root, rel, compiled):
    """The (line number, reason, text) of every line of one file that a
    pattern of `compiled` matches (the first pattern's reason)."""
    try:
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
    except OSError as e:
        return [(0, "cannot read: %s" % e, "")]
    if b"\0" in data:
        return []  # binary
    hits = []
    for n, line in enumerate(data.decode("utf-8", errors="replace").split("\n"), 1):
        for rx, why in compiled:
            if rx.search(line):
                hits.append((n, why, line.strip()))
                break
    return hits
