#!/usr/bin/env python3
"""Decrypts an etcd-runbooks backup (ID.db.enc) into the etcd snapshot it holds, without Java or etcd-runbooks.

An independent implementation of the format docs/backup-format.md specifies, so that a backup stays readable
when the tool that wrote it is gone. Needs Python 3.9+ and the `cryptography` package.

    decrypt-backup.py --in ID.db.enc --out ID.db --key-file backup.key --key-id prod-1-2026
    etcdutl snapshot status ID.db -w table     # revision and hash as recorded in ID.json

Nothing is left at --out unless every chunk authenticated. Exit status: 0 done, 1 refused (wrong key, damaged
or truncated file), 2 bad command line.
"""
import argparse
import base64
import hashlib
import hmac
import os
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"ERBK"
VERSION = 1
TAG_BYTES = 16
MAX_CHUNK_SIZE = 16 << 20
MORE, FINAL = 0, 1


class Refused(Exception):
    pass


def derive(key, purpose):
    return hmac.new(key, purpose.encode("ascii"), hashlib.sha256).digest()


def read_exactly(stream, n, what):
    data = stream.read(n)
    if len(data) < n:
        raise Refused("truncated inside " + what)
    return data


def read_key(path):
    try:
        key = base64.b64decode(open(path, "rb").read().strip(), validate=True)
    except (OSError, ValueError) as e:
        raise Refused("cannot read the key file %s as base64 (%s)" % (path, type(e).__name__))
    if len(key) != 32:
        raise Refused("the key file %s holds %d bytes, not 32" % (path, len(key)))
    return key


def decrypt(source, sink, key, key_id):
    fixed = source.read(len(MAGIC) + 2)
    if len(fixed) < len(MAGIC) + 2 or fixed[: len(MAGIC)] != MAGIC:
        raise Refused("not an encrypted etcd-runbooks backup (no ERBK header)")
    if fixed[len(MAGIC)] != VERSION:
        raise Refused("format version %d is not supported (only %d)" % (fixed[len(MAGIC)], VERSION))
    id_length = fixed[len(MAGIC) + 1]
    rest = read_exactly(source, id_length + 16 + 8 + 4, "the header")
    header = fixed + rest
    file_key_id = rest[:id_length].decode("utf-8")
    check, nonce_prefix = rest[id_length : id_length + 16], rest[id_length + 16 : id_length + 24]
    (chunk_size,) = struct.unpack(">I", rest[id_length + 24 :])
    if not 1 <= chunk_size <= MAX_CHUNK_SIZE:
        raise Refused("the header's chunk size %d is damaged" % chunk_size)
    if file_key_id != key_id:
        raise Refused("the backup was encrypted with key id '%s', not '%s'" % (file_key_id, key_id))
    if not hmac.compare_digest(check, derive(key, "etcd-runbooks backup key check v1")[:16]):
        raise Refused("wrong key: this is not the key the backup was encrypted with")
    aead = AESGCM(derive(key, "etcd-runbooks backup encryption v1"))
    index = 0
    while True:
        frame = source.read(5)
        if not frame:
            raise Refused("truncated: the backup ends after %d chunks without its final chunk" % index)
        if len(frame) < 5:
            raise Refused("truncated inside chunk %d" % index)
        flag, length = frame[0], struct.unpack(">I", frame[1:])[0]
        if flag not in (MORE, FINAL) or length > chunk_size or (flag == MORE and length != chunk_size):
            raise Refused("chunk %d has a damaged frame (flag %d, length %d)" % (index, flag, length))
        sealed = read_exactly(source, length + TAG_BYTES, "chunk %d" % index)
        nonce = nonce_prefix + struct.pack(">I", index)
        associated = header + struct.pack(">QBI", index, flag, length)
        try:
            sink.write(aead.decrypt(nonce, sealed, associated))
        except InvalidTag:
            raise Refused("chunk %d failed authentication: the backup was modified, or its chunks were"
                          " reordered, dropped or repeated" % index)
        if flag == FINAL:
            if source.read(1):
                raise Refused("the backup has data after its final chunk %d" % index)
            return index + 1
        index += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--in", dest="source", required=True, help="the encrypted backup, ID.db.enc")
    parser.add_argument("--out", required=True, help="where the snapshot goes (must not exist)")
    parser.add_argument("--key-file", required=True, help="the backup key: 32 bytes, base64")
    parser.add_argument("--key-id", required=True, help="the key's id, as the inventory names it")
    args = parser.parse_args()
    if os.path.exists(args.out):
        print("decrypt-backup: %s exists; give a new path" % args.out, file=sys.stderr)
        return 2
    partial = args.out + ".partial"
    if os.path.exists(partial):
        print("decrypt-backup: %s exists (left by another run?); remove it first" % partial, file=sys.stderr)
        return 2
    try:
        key = read_key(args.key_file)
        with open(args.source, "rb") as source, \
                os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as sink:
            chunks = decrypt(source, sink, key, args.key_id)
            sink.flush()
            os.fsync(sink.fileno())
        os.rename(partial, args.out)
    except (Refused, OSError) as e:
        if os.path.exists(partial):
            os.remove(partial)
        print("decrypt-backup: %s: %s" % (args.source, e), file=sys.stderr)
        return 1
    print("decrypt-backup: %s -> %s (%d chunks authenticated)" % (args.source, args.out, chunks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
