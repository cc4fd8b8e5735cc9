#!/usr/bin/python3
"""verify_sigv4.py LOGFILE ACCESS_KEY SECRET REGION [TOKEN] - recompute the
SigV4 signature of every request capture.py logged with botocore's own S3
signer (S3SigV4Auth), over the headers the request says it signed, and
check what S3 itself checks: the signature, the credential scope, that
x-amz-content-sha256 is the SHA-256 of the body received and is signed,
and the security token when one is expected.  Prints one verdict line per
request; exits 1 if any request fails."""
import base64
import hashlib
import json
import re
import sys

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

log, key, secret, region = sys.argv[1:5]
token = sys.argv[5] if len(sys.argv) > 5 else None
creds = Credentials(key, secret, token)
bad = 0

for n, line in enumerate(open(log), 1):
    req = json.loads(line)
    body = base64.b64decode(req["body"])
    hdrs = {}
    for k, v in req["headers"]:
        hdrs[k.lower()] = v
    problems = []
    m = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, "
                     r"SignedHeaders=([^,]+), Signature=([0-9a-f]{64})",
                     hdrs.get("authorization", ""))
    if not m:
        print("request %d: no SigV4 Authorization header: %r" % (n, hdrs.get("authorization")))
        bad += 1
        continue
    cred_key, date, scope_region, signed, sig = m.groups()
    signed = signed.split(";")
    if cred_key != key:
        problems.append("credential key id %s" % cred_key)
    if scope_region != region:
        problems.append("scope region %s" % scope_region)
    if not hdrs.get("x-amz-date", "").startswith(date):
        problems.append("x-amz-date does not match the scope date")
    if hdrs.get("x-amz-content-sha256") != hashlib.sha256(body).hexdigest():
        problems.append("x-amz-content-sha256 is not the SHA-256 of the body")
    for h in ("host", "x-amz-date", "x-amz-content-sha256"):
        if h not in signed:
            problems.append("%s not signed" % h)
    if req["method"] == "PUT" and "content-type" not in signed:
        problems.append("content-type not signed")
    if token is not None and (hdrs.get("x-amz-security-token") != token or
                              "x-amz-security-token" not in signed):
        problems.append("security token missing or unsigned")
    # the server's view: rebuild the request from what was received
    aws = AWSRequest(method=req["method"], url="http://" + hdrs["host"] + req["path"],
                     data=body, headers={h: hdrs[h] for h in signed})
    auth = S3SigV4Auth(creds, "s3", region)
    aws.context["timestamp"] = hdrs["x-amz-date"]
    want = auth.signature(auth.string_to_sign(aws, auth.canonical_request(aws)), aws)
    if want != sig:
        problems.append("signature mismatch (botocore %s)" % want)
    if problems:
        bad += 1
        print("request %d %s %s: BAD: %s" % (n, req["method"], req["path"], "; ".join(problems)))
    else:
        print("request %d %s %s: signature verified (signed: %s)" %
              (n, req["method"], req["path"], ";".join(signed)))
sys.exit(1 if bad else 0)
