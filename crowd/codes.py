"""Crowd codes a worker earns: keyed by a secret of this deployment, never by the link.

A per-worker code is an HMAC of (project, worker, ending) under a random key kept in the
database (``deployment_secrets``), so knowing the study link, the worker id and this code
does not let anyone compute the code the server will show at the end.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from annotation_store.models import DeploymentSecret
from annotation_store.store import Store

SECRET_NAME = "crowd_codes"
CODE_LENGTH = 10
#: The endings that carry a code, and the word each one's HMAC is keyed on.
ENDINGS = ("completion", "full")


def deployment_secret(store: Store) -> bytes:
    """The key of this deployment's crowd codes (made on first use, then kept)."""
    with store.read() as s:
        value = s.scalar(select(DeploymentSecret.value).where(DeploymentSecret.name == SECRET_NAME))
    if value is not None:
        return value.encode()
    try:
        with store.write() as s:
            s.add(DeploymentSecret(name=SECRET_NAME, value=secrets.token_hex(32)))
    except IntegrityError:  # another process made it first: use theirs
        pass
    with store.read() as s:
        value = s.scalar(select(DeploymentSecret.value).where(DeploymentSecret.name == SECRET_NAME))
    assert value is not None
    return value.encode()


def worker_code(store: Store, project: str, annotator: str, ending: str) -> str:
    """The code of ``annotator``'s ``ending`` (completion / full) in ``project``."""
    if ending not in ENDINGS:
        raise ValueError(f"no code for the ending {ending!r}")
    message = f"{ending}\x00{project}\x00{annotator}".encode()
    digest = hmac.new(deployment_secret(store), message, hashlib.sha256).hexdigest()
    return digest[:CODE_LENGTH].upper()
