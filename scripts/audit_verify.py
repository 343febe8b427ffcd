#!/usr/bin/env python3
"""Independent verifier of basel's verifiable log (standard library only).

It trusts nothing of basel's code: it checks a checkpoint's Ed25519
signature (C2SP signed note; RFC 8032 verification below), an RFC 9162
inclusion proof of an event, and an RFC 9162 consistency proof between two
checkpoints. Exit status 0 when everything verifies, 1 otherwise.

Every input is a file, or fetched from a running basel with --url:

  audit_verify.py checkpoint  --vkey VKEY CHECKPOINT
  audit_verify.py inclusion   --vkey VKEY --checkpoint FILE --entry FILE --proof FILE
  audit_verify.py consistency --vkey VKEY --old FILE --new FILE --proof FILE
  audit_verify.py --url http://127.0.0.1:8080 --api-key KEY inclusion --vkey VKEY --position 42 --checkpoint FILE

VKEY is the `vkey` of GET /api/v1/audit/key, saved once (pin it: a key
fetched at verification time proves nothing). CHECKPOINT files hold the text
of GET /api/v1/audit/checkpoint; ENTRY the JSON of
GET /api/v1/audit/entries/{position}; PROOF the JSON of
/api/v1/audit/proof/inclusion or /consistency.
"""

import argparse
import base64
import hashlib
import json
import sys
import urllib.error
import urllib.request

# --- Ed25519 verification (RFC 8032, section 6) ---------------------------

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(a, b):
    x = (a[1] - a[0]) * (b[1] - b[0]) % P
    y = (a[1] + a[0]) * (b[1] + b[0]) % P
    c = 2 * a[3] * b[3] * D % P
    d = 2 * a[2] * b[2] % P
    e, f, g, h = y - x, d - c, d + c, y + x
    return (e * f, g * h, f * g, e * h)


def _mul(s, point):
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _add(q, point)
        point = _add(point, point)
        s >>= 1
    return q


def _equal(a, b):
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def _recover_x(y, sign):
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


def _decompress(s):
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


_GY = 4 * pow(5, P - 2, P) % P
_GX = _recover_x(_GY, 0)
G = (_GX, _GY, 1, _GX * _GY % P)


def ed25519_verify(public, message, signature):
    """RFC 8032 Ed25519 verification."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _decompress(public)
    r = _decompress(signature[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % L
    return _equal(_mul(s, G), _add(r, _mul(h, a)))


# --- signed notes (C2SP signed-note, tlog-checkpoint) ---------------------


def parse_vkey(vkey):
    # The key name holds no "+"; the base64 key may.
    name, key_id, blob = vkey.strip().split("+", 2)
    raw = base64.b64decode(blob)
    if raw[:1] != b"\x01" or len(raw) != 33:
        raise ValueError("not an Ed25519 verifier key")
    public = raw[1:]
    expected = hashlib.sha256(name.encode() + b"\n\x01" + public).digest()[:4]
    if expected.hex() != key_id:
        raise ValueError("the verifier key's id does not match its key")
    return name, expected, public


def open_checkpoint(note, vkey):
    """(origin, size, root) of a checkpoint signed by vkey, else ValueError."""
    name, key_id, public = parse_vkey(vkey)
    text, sep, signatures = note.partition("\n\n")
    if not sep:
        raise ValueError("no blank line before the signatures")
    text += "\n"
    signed = False
    for line in signatures.splitlines():
        if not line.startswith("\u2014 "):
            continue
        parts = line[2:].split(" ")
        if len(parts) != 2 or parts[0] != name:
            continue
        try:
            blob = base64.b64decode(parts[1], validate=True)
        except ValueError:
            continue
        if len(blob) == 68 and blob[:4] == key_id and ed25519_verify(public, text.encode(), blob[4:]):
            signed = True
    if not signed:
        raise ValueError("no valid signature by " + name)
    lines = text.split("\n")
    origin, size, root = lines[0], int(lines[1]), base64.b64decode(lines[2], validate=True)
    if origin != name or len(root) != 32:
        raise ValueError("not a checkpoint of this log")
    return origin, size, root


# --- RFC 9162 proofs -------------------------------------------------------


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def verify_inclusion(leaf, index, size, path, root):
    """RFC 9162, section 2.1.3.2."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(size1, size2, path, root1, root2):
    """RFC 9162, section 2.1.4.2."""
    if size1 > size2:
        return False
    if size1 == size2:
        return not path and root1 == root2
    if size1 == 0:
        return not path
    if size1 & (size1 - 1) == 0:
        path = [root1] + list(path)
    if not path:
        return False
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == root1 and sr == root2


# --- inputs ----------------------------------------------------------------


def fetch(args, path, key=False):
    if not args.url:
        raise ValueError("give a file or --url")
    request = urllib.request.Request(args.url.rstrip("/") + path)
    if key and args.api_key:
        request.add_header("X-API-Key", args.api_key)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.read().decode()
    except urllib.error.HTTPError as error:
        # basel's error bodies are JSON with a message; say it, not a traceback.
        body = error.read().decode(errors="replace")
        try:
            said = json.loads(body).get("message", body)
        except (json.JSONDecodeError, AttributeError):
            said = body
        raise ValueError(f"GET {path}: HTTP {error.code}: {said}") from None
    except (urllib.error.URLError, OSError) as error:
        raise ValueError(f"GET {args.url.rstrip('/')}{path}: {error}") from None


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def b64list(items):
    return [base64.b64decode(i, validate=True) for i in items]


def cmd_checkpoint(args):
    note = read(args.file) if args.file else fetch(args, "/api/v1/audit/checkpoint")
    origin, size, root = open_checkpoint(note, args.vkey)
    print(f"checkpoint ok: {origin} size {size} root {base64.b64encode(root).decode()}")


def cmd_inclusion(args):
    note = read(args.checkpoint) if args.checkpoint else fetch(args, "/api/v1/audit/checkpoint")
    _, size, root = open_checkpoint(note, args.vkey)
    if args.entry:
        entry = json.loads(read(args.entry))
    else:
        entry = json.loads(fetch(args, f"/api/v1/audit/entries/{args.position}", key=True))
    position = entry["position"]
    if args.proof:
        proof = json.loads(read(args.proof))
    else:
        proof = json.loads(fetch(args, f"/api/v1/audit/proof/inclusion?position={position}&tree_size={size}"))
    leaf = hashlib.sha256(b"\x00" + base64.b64decode(entry["leaf_data"], validate=True)).digest()
    if proof["tree_size"] != size or proof["position"] != position:
        raise ValueError("the proof is for another event or tree")
    if not verify_inclusion(leaf, proof["leaf_index"], size, b64list(proof["inclusion_path"]), root):
        raise ValueError(f"position {position} is not included in the checkpoint of size {size}")
    print(f"inclusion ok: position {position} (leaf {proof['leaf_index']}) is in the tree of size {size}")


def cmd_consistency(args):
    _, size1, root1 = open_checkpoint(read(args.old), args.vkey)
    new = read(args.new) if args.new else fetch(args, "/api/v1/audit/checkpoint")
    _, size2, root2 = open_checkpoint(new, args.vkey)
    if args.proof:
        proof = json.loads(read(args.proof))
    else:
        proof = json.loads(fetch(args, f"/api/v1/audit/proof/consistency?from={size1}&to={size2}"))
    if proof["from"] != size1 or proof["to"] != size2:
        raise ValueError("the proof is for other trees")
    if not verify_consistency(size1, size2, b64list(proof["consistency_path"]), root1, root2):
        raise ValueError(f"the tree of size {size2} does not extend the tree of size {size1}")
    print(f"consistency ok: the tree of size {size2} extends the tree of size {size1}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="basel's base URL, to fetch what no file gives")
    parser.add_argument("--api-key", help="an API key (entries need one)")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("checkpoint", help="verify a checkpoint's signature")
    c.add_argument("--vkey", required=True)
    c.add_argument("file", nargs="?")
    c.set_defaults(run=cmd_checkpoint)
    i = sub.add_parser("inclusion", help="verify that an event is in a checkpoint's tree")
    i.add_argument("--vkey", required=True)
    i.add_argument("--checkpoint")
    i.add_argument("--entry")
    i.add_argument("--proof")
    i.add_argument("--position", type=int)
    i.set_defaults(run=cmd_inclusion)
    k = sub.add_parser("consistency", help="verify that a newer checkpoint extends an older one")
    k.add_argument("--vkey", required=True)
    k.add_argument("--old", required=True)
    k.add_argument("--new")
    k.add_argument("--proof")
    k.set_defaults(run=cmd_consistency)
    args = parser.parse_args()
    try:
        args.run(args)
    except (ValueError, KeyError, TypeError, IndexError, OSError, UnicodeDecodeError) as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
