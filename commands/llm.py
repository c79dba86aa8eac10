"""``llm serve``: a local llama.cpp judge server (see :mod:`evaluators.llm.local`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from commands import CommandError

if TYPE_CHECKING:
    from annotation_store import Store


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``llm`` command group."""
    p = sub.add_parser("llm", help="a local judge model (llama.cpp's OpenAI-compatible server)")
    actions = p.add_subparsers(dest="llm_command", required=True, metavar="ACTION")
    serve = actions.add_parser(
        "serve",
        help="start the server on 127.0.0.1 (SmolLM2-135M-Instruct unless --model names a GGUF)",
    )
    serve.add_argument("--model", help="a .gguf file (default: the bundled SmolLM2-135M)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8088)")
    serve.add_argument("--alias", help="the model name the server reports (default: file name)")
    serve.add_argument("--threads", type=int, help="CPU threads (default: every core)")
    serve.add_argument("--quiet", action="store_true", help="hide the server's own log")
    serve.set_defaults(handler=cmd_serve, no_store=True)


def cmd_serve(args: argparse.Namespace, store: Store | None) -> int:
    """Start the server, print the settings that point the workbench at it, and keep it
    running until interrupted."""
    from evaluators.llm.local import LocalServer, env_lines, make_spec

    try:
        spec = make_spec(args.model, args.port, args.alias, args.threads)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    print(f"starting llama.cpp's server with {spec.model.name} on {spec.base_url} ...")
    server = LocalServer(spec, log=None if args.quiet else sys.stderr.fileno())
    try:
        server.start()
    except RuntimeError as exc:
        raise CommandError(str(exc)) from None
    print("ready; point the workbench at it with:")
    for line in env_lines(spec):
        print(f"  {line}")
    print("(a 135M model proves the wiring, it does not judge well; Ctrl-C stops it)")
    sys.stdout.flush()
    try:
        assert server.process is not None
        return server.process.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
