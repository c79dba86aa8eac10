"""Address policy of the URL Content Retriever: which hosts it may connect to.

A URL's host is resolved first and every address is checked; loopback, private,
link-local, multicast, reserved and unspecified addresses are refused unless private
addresses are explicitly allowed (self-hosted sources, tests). The fetcher then connects
to an address that passed the check, so a second DNS answer cannot swap it (rebinding).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class RefusedAddress(ValueError):
    """The URL points to an address the policy refuses."""


@dataclass(frozen=True)
class Resolved:
    """A host and the checked address to connect to."""

    host: str
    address: IPAddress


#: NAT64 prefixes (RFC 6052 well-known, RFC 8215 local-use) put an IPv4 address in the
#: last 32 bits.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


def embedded_ipv4(addr: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 address carries (6to4, Teredo client, NAT64, IPv4-compatible)
    with the scheme's name, or None. IPv4-mapped addresses are handled by the caller."""
    if addr.sixtofour is not None:
        return "6to4", addr.sixtofour
    if addr.teredo is not None:
        return "Teredo", addr.teredo[1]
    low32 = ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    if any(addr in net for net in _NAT64):
        return "NAT64", low32
    if addr in _IPV4_COMPATIBLE and int(addr) > 0xFFFF:  # not ::, ::1
        return "IPv4-compatible", low32
    return None


def forbidden_reason(addr: IPAddress) -> str | None:
    """Why ``addr`` is not a public address, or None when it is.

    An IPv6 address that embeds an IPv4 address (IPv4-mapped, 6to4, Teredo, NAT64,
    IPv4-compatible) is judged by the embedded address too: gateways forward such
    packets to it.
    """
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return forbidden_reason(addr.ipv4_mapped)
    if isinstance(addr, ipaddress.IPv6Address) and (embedded := embedded_ipv4(addr)):
        scheme, inner = embedded
        inner_reason = forbidden_reason(inner)
        if inner_reason:
            return f"{scheme} address of {inner}, {inner_reason}"
    checks = (
        ("unspecified", addr.is_unspecified),
        ("loopback", addr.is_loopback),
        ("link-local", addr.is_link_local),
        ("multicast", addr.is_multicast),
        ("reserved", addr.is_reserved),
        ("private", addr.is_private),
        ("not globally routable", not addr.is_global),
    )
    for name, hit in checks:
        if hit:
            return name
    return None


def static_host_reason(host: str) -> str | None:
    """Why ``host`` is non-public without asking DNS, or None when that cannot be told.

    Covers address literals and the ``localhost`` names; used to re-check stored pages
    that predate the record's ``private_address`` entry (no network on a re-run).
    """
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return "loopback"
    try:
        return forbidden_reason(ipaddress.ip_address(name.split("%")[0]))
    except ValueError:
        return None


async def resolve_checked(host: str, port: int, allow_private: bool) -> Resolved:
    """Resolve ``host`` and return an allowed address; raise RefusedAddress otherwise.

    Every address DNS returns must pass, so a name with one public and one private
    record is refused rather than gambled on.
    """
    try:
        literal: IPAddress | None = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        literal = None
    if literal is not None:
        addresses: list[IPAddress] = [literal]
    else:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise RefusedAddress(f"cannot resolve {host}: {exc.strerror}") from None
        addresses = list(
            dict.fromkeys(ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos)
        )
    if not addresses:
        raise RefusedAddress(f"{host} has no address")
    if not allow_private:
        for addr in addresses:
            reason = forbidden_reason(addr)
            if reason:
                raise RefusedAddress(f"{host} resolves to {addr} ({reason}); refused")
    return Resolved(host, addresses[0])
