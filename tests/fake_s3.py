#!/usr/bin/env python3
"""A small S3 endpoint for tests of segscan's s3:// store (tests/test_store.c).

It serves ListObjectsV2, HEAD and GET over a directory whose sub-directories are buckets
(as versitygw's posix backend does), checks every request's AWS Signature Version 4 in
full (canonical request, scope, HMAC chain) against one access key, and misbehaves on
request so that the client's error paths can be tested in bounded time:

  usage: fake_s3.py ROOT ACCESS_KEY SECRET_KEY PORTFILE [--fail-first N] [--stall]
                    [--no-size] [--max-keys-cap N] [--log FILE]
  writes its port to PORTFILE (renamed into place) once listening on 127.0.0.1 (a free
  port), then serves until killed.

  --fail-first N   the first N requests get HTTP 503 SlowDown
  --stall          every request is read and never answered (a server that stops answering)
  --no-size        listings omit <Size> (the client must HEAD)
  --log FILE       one line per request: "METHOD PATH?QUERY STATUS"

The real S3 server of the conformance tests is versitygw; this one exists so that the unit
suite needs no Go toolchain and can make a server fail exactly when a test wants it to.
"""
import datetime
import hashlib
import hmac
import http.server
import os
import socket
import sys
import threading
import time
import urllib.parse
from xml.sax.saxutils import escape

ROOT, AK, SK, PORTFILE = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
args = sys.argv[5:]
FAIL_FIRST = int(args[args.index("--fail-first") + 1]) if "--fail-first" in args else 0
STALL = "--stall" in args
NO_SIZE = "--no-size" in args
CAP = int(args[args.index("--max-keys-cap") + 1]) if "--max-keys-cap" in args else 1000
LOG = args[args.index("--log") + 1] if "--log" in args else None
lock = threading.Lock()
count = [0]


def uri_encode(s, keep_slash):
    safe = "-_.~" + ("/" if keep_slash else "")
    return urllib.parse.quote(s, safe=safe)


def keys_of(bucket_dir):
    """Every file below bucket_dir as (key, size), in S3's order (bytewise)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(bucket_dir):
        for f in filenames:
            p = os.path.join(dirpath, f)
            k = os.path.relpath(p, bucket_dir).replace(os.sep, "/")
            out.append((k.encode(), os.lstat(p).st_size))
    out.sort()
    return [(k.decode(), s) for k, s in out]


def check_sig(h):
    """None when the request is signed right by AK/SK, else an S3 error code."""
    auth = h.headers.get("Authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return "AccessDenied"
    parts = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
    cred = parts.get("Credential", "").split("/")
    if len(cred) != 5 or cred[0] != AK:
        return "InvalidAccessKeyId"
    date, region, service = cred[1], cred[2], cred[3]
    if service != "s3" or cred[4] != "aws4_request":
        return "AuthorizationHeaderMalformed"
    amzdate = h.headers.get("x-amz-date", "")
    payload = h.headers.get("x-amz-content-sha256")
    if payload is None:
        return "InvalidRequest"
    signed = parts.get("SignedHeaders", "").split(";")
    path, _, query = h.path.partition("?")
    q = urllib.parse.parse_qsl(query, keep_blank_values=True)
    cq = "&".join("%s=%s" % (uri_encode(k, False), uri_encode(v, False)) for k, v in sorted(q))
    ch = "".join("%s:%s\n" % (n, " ".join(h.headers.get(n, "").split())) for n in signed)
    creq = "\n".join([h.command, path, cq, ch, ";".join(signed), payload])
    scope = "/".join([date, region, service, "aws4_request"])
    sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope, hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + SK).encode()
    for m in (date, region, service, "aws4_request"):
        k = hmac.new(k, m.encode(), hashlib.sha256).digest()
    want = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, parts.get("Signature", "")):
        return "SignatureDoesNotMatch"
    return None


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body=b"", headers=()):
        if LOG:
            with lock, open(LOG, "a") as f:
                f.write("%s %s %d\n" % (self.command, self.path, status))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if self.command == "HEAD" and body is None:
            pass
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, msg=""):
        body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>%s</Message></Error>"
                % (code, escape(msg))).encode()
        self.reply(status, body, [("Content-Type", "application/xml")])

    def handle_any(self):
        if STALL:
            time.sleep(3600)
            return
        with lock:
            count[0] += 1
            n = count[0]
        if n <= FAIL_FIRST:
            return self.error(503, "SlowDown", "Please reduce your request rate.")
        bad = check_sig(self)
        if bad:
            return self.error(403, bad, "signature check: " + bad)
        path, _, query = self.path.partition("?")
        parts = urllib.parse.unquote(path).lstrip("/").split("/", 1)
        bucket = parts[0]
        bdir = os.path.join(ROOT, bucket)
        if not bucket or not os.path.isdir(bdir):
            return self.error(404, "NoSuchBucket", "The specified bucket does not exist")
        q = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        if len(parts) == 1 or parts[1] == "":
            if q.get("list-type") != "2":
                return self.error(400, "InvalidArgument", "only ListObjectsV2")
            prefix = q.get("prefix", "")
            mk = min(int(q.get("max-keys", "1000")), CAP)
            token = q.get("continuation-token")
            keys = [(k, s) for k, s in keys_of(bdir) if k.startswith(prefix)]
            if token:
                keys = [(k, s) for k, s in keys if k.encode() > token.encode()]
            page, rest = keys[:mk], keys[mk:]
            x = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                 "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">",
                 "<Name>%s</Name><Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys>"
                 % (escape(bucket), escape(prefix), len(page), mk),
                 "<IsTruncated>%s</IsTruncated>" % ("true" if rest else "false")]
            for k, s in page:
                x.append("<Contents><Key>%s</Key>%s<StorageClass>STANDARD</StorageClass></Contents>"
                         % (escape(k), "" if NO_SIZE else "<Size>%d</Size>" % s))
            if rest:
                x.append("<NextContinuationToken>%s</NextContinuationToken>" % escape(page[-1][0]))
            x.append("</ListBucketResult>")
            return self.reply(200, "\n".join(x).encode(), [("Content-Type", "application/xml")])
        fp = os.path.join(bdir, parts[1])
        if not os.path.isfile(fp):
            return self.error(404, "NoSuchKey", "The specified key does not exist.")
        if self.command == "HEAD":
            if LOG:
                with lock, open(LOG, "a") as f:
                    f.write("HEAD %s 200\n" % self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(os.path.getsize(fp)))
            self.end_headers()
            return
        with open(fp, "rb") as f:
            self.reply(200, f.read(), [("Content-Type", "application/octet-stream")])

    do_GET = handle_any
    do_HEAD = handle_any


class S(http.server.ThreadingHTTPServer):
    daemon_threads = True
    address_family = socket.AF_INET


srv = S(("127.0.0.1", 0), H)
with open(PORTFILE + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
