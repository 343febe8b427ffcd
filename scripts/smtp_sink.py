#!/usr/bin/env python3
"""A real SMTP server on loopback for basel's e-mail tests (aiosmtpd).

Listens on 127.0.0.1 (port 0 by default: the OS picks one), prints
`port=N` on stdout once it accepts connections, and writes every message it
accepts to DIR as NNNNN.json: the envelope (mail_from, rcpt_tos), every header
(decoded, a list per name) and the decoded text body. Each RCPT TO also
creates DIR/rcpt-NNNNN before the reply, so a test can tell that a
conversation is under way; --rcpt-delay holds each RCPT reply that long
(to kill the client between two messages).

  python3 scripts/smtp_sink.py --dir DIR [--port N] [--rcpt-delay S]
                               [--user U --password P]   # then AUTH is required
                               [--tls implicit|starttls --cert PEM --key PEM]

Needs aiosmtpd (scripts/requirements-mail.txt).
"""

import argparse
import asyncio
import email
import email.policy
import itertools
import json
import os
import ssl

from aiosmtpd.smtp import SMTP, AuthResult


class Sink:
    def __init__(self, directory, rcpt_delay):
        self.directory = directory
        self.rcpt_delay = rcpt_delay
        self.messages = itertools.count(1)
        self.rcpts = itertools.count(1)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        marker = os.path.join(self.directory, "rcpt-%05d" % next(self.rcpts))
        open(marker, "w").close()
        if self.rcpt_delay:
            await asyncio.sleep(self.rcpt_delay)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        headers = {}
        for name, value in parsed.items():
            headers.setdefault(name.lower(), []).append(str(value))
        body = parsed.get_body(preferencelist=("plain",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "headers": headers,
            "body": body.get_content() if body is not None else "",
        }
        path = os.path.join(self.directory, "%05d.json" % next(self.messages))
        with open(path + ".tmp", "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.rename(path + ".tmp", path)
        return "250 Message accepted for delivery"


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        ok = auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok)

    return check


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--rcpt-delay", type=float, default=0.0)
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--tls", choices=["implicit", "starttls"])
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    handler = Sink(args.dir, args.rcpt_delay)
    options = {}
    if args.user:
        options = dict(
            authenticator=authenticator(args.user, args.password or ""),
            auth_required=True,
            auth_require_tls=False,
        )
    context = None
    if args.tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
    if args.tls == "starttls":
        options.update(tls_context=context, require_starttls=True)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="sink.test", **options),
        host="127.0.0.1",
        port=args.port,
        ssl=context if args.tls == "implicit" else None,
    )
    port = server.sockets[0].getsockname()[1]
    print("port=%d" % port, flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
