""":mod:`naiko_service.sealing` seals what the service stores encrypted: a table's state, its
R8.6 fallback and its hands' records (``docs/secrets.md`` is the reference).

Every table has its own AES-256-GCM key, derived with HKDF-SHA256 from a master key and the
table id, and every sealed blob names the version of the master key it was sealed with::

    blob    = "NK" || key_version (uint16, big-endian, 1-65535) || nonce (12)
              || ciphertext || tag (16)
    key     = HKDF-SHA256(ikm = master[key_version], salt = none, length = 32,
                          info = "naiko/state-seal/v1/aes-256-gcm/table:" || table_id)
    aad     = the blob's first 4 bytes || UTF-8 of (table_id || purpose)

``purpose`` is ``""`` for the state, ``"#fallback"`` for the fallback, ``"#hand#<n>"`` for a
hand's record, so a blob opens only as what it was sealed as, for the table it was sealed for.

Blobs sealed before key versions existed (**version 0**, legacy) are ``nonce || ciphertext ||
tag`` under the one state key itself, with ``table_id || purpose`` as associated data. They
have no header; one whose random nonce happens to start with ``"NK"`` (1 in 65,536) is told
apart by trying: GCM authenticates, so a wrong guess fails its tag and the other reading is
tried.

A :class:`Keyring` holds the master keys by version and which one seals (``current``). A
:class:`Sealer` reads every version its keyring holds, writes with the current one, and refuses
a blob of a version it does not hold with :class:`UnknownKeyVersion` (after re-reading its
keyring once, in case another container started sealing with a newer version first).
``cryptography`` is imported when a sealer is built.

The plaintext is the document as compact JSON, deflated (zlib, level 6) against a preset
dictionary, :data:`~naiko_service.seal_dictionary.SEAL_DICTIONARY` (typical sealed documents:
the keys and structure every state shares cost a few bytes instead of ~1 KB; issue 23 item 10,
DynamoDB bills the item by the KB). The zlib header names the dictionary (``FDICT`` and its
Adler-32, :data:`DICTIONARIES`); a stream without one (sealed before) opens as it is.
"""

from __future__ import annotations

import json
import os
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .seal_dictionary import SEAL_DICTIONARY, SEAL_DICTIONARY_ID

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"NK"
"""The first two bytes of a versioned blob."""
HEADER_BYTES = 4
"""``MAGIC`` and the key version (uint16, big-endian)."""
NONCE_BYTES = 12
TAG_BYTES = 16
LEGACY_VERSION = 0
"""The key version of blobs sealed before versions existed: no header, the state key itself."""
MAX_VERSION = 0xFFFF
TABLE_KEY_INFO = b"naiko/state-seal/v1/aes-256-gcm/table:"
"""HKDF ``info`` prefix of a table's key (the table id follows, UTF-8)."""
KEY_CACHE_SIZE = 4096
"""Derived table keys kept per sealer (one container): ~1 KB each."""
REFRESH_SECONDS = 300.0
"""How long a container trusts its keyring before it reads the secret again: after a rotation
adds a version, every container seals with it within this time (``docs/secrets.md``)."""
DICTIONARIES: dict[int, bytes] = {SEAL_DICTIONARY_ID: SEAL_DICTIONARY}
"""The preset dictionaries a sealed stream may name, by Adler-32 (its zlib header's DICTID):
each is frozen once anything was sealed with it; a new one is added, never swapped in."""
SEALING_DICTIONARY = SEAL_DICTIONARY
"""The one :meth:`Sealer.seal` compresses against."""
UNKNOWN_VERSION_REFRESH_GAP = 5.0
"""A blob of an unknown version makes the sealer re-read its keyring, at most this often."""


class UnknownKeyVersion(LookupError):
    """A blob was sealed with a key version this keyring does not hold: a configuration error
    (a retired or missing key), never a damaged table."""

    def __init__(self, version: int, known: tuple[int, ...]):
        names = ", ".join(str(v) for v in known) or "none"
        super().__init__(f"sealed with state key version {version}, which the keyring does not "
                         f"hold (it holds {names}): put that version back into the state-key "
                         "secret (docs/secrets.md)")
        self.version = version
        self.known = known


@dataclass(frozen=True, slots=True)
class Keyring:
    """Master keys by version and the version new blobs are sealed with.

    ``masters[0]`` (optional) is the legacy state key, used as is; every other version is a
    master from which each table's key is derived.

    >>> Keyring.single(bytes(32)).versions
    (0, 1)
    """

    current: int
    masters: Mapping[int, bytes]

    def __post_init__(self) -> None:
        if not 1 <= self.current <= MAX_VERSION:
            raise ValueError(f"the current key version must be 1-{MAX_VERSION}")
        if self.current not in self.masters:
            raise ValueError(f"the keyring has no key for its current version {self.current}")
        for version, master in self.masters.items():
            if not 0 <= version <= MAX_VERSION:
                raise ValueError(f"key version {version} is outside 0-{MAX_VERSION}")
            if len(master) != 32:
                raise ValueError(f"key version {version} is not 32 bytes")

    @classmethod
    def single(cls, key: bytes) -> Keyring:
        """One key, as before versions: it opens legacy blobs (version 0) and is the master of
        version 1, which seals."""
        return cls(1, {LEGACY_VERSION: key, 1: key})

    @property
    def versions(self) -> tuple[int, ...]:
        return tuple(sorted(self.masters))


def key_version(blob: bytes) -> int:
    """The key version a blob names in its header; :data:`LEGACY_VERSION` without one.

    A legacy blob whose nonce starts with ``"NK"`` reads as a versioned one here (1 in
    65,536); :meth:`Sealer.open` still opens it.

    >>> key_version(b"NK\\x00\\x02" + bytes(28))
    2
    >>> key_version(bytes(28))
    0
    """
    if len(blob) >= HEADER_BYTES + NONCE_BYTES + TAG_BYTES and blob[:2] == MAGIC:
        version = int.from_bytes(blob[2:HEADER_BYTES], "big")
        if version != LEGACY_VERSION:
            return version
    return LEGACY_VERSION


def derive_table_key(master: bytes, table_id: str) -> bytes:
    """A table's 32-byte key: HKDF-SHA256 of *master*, no salt, info :data:`TABLE_KEY_INFO`
    followed by the table id."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=TABLE_KEY_INFO + table_id.encode()).derive(master)


def compress(data: bytes, dictionary: bool = True) -> bytes:
    """*data* deflated (zlib, level 6) against :data:`SEALING_DICTIONARY` (or against
    nothing, as before it: a stream every earlier release inflates)."""
    if not dictionary:
        return zlib.compress(data, 6)
    compressor = zlib.compressobj(6, zdict=SEALING_DICTIONARY)
    return compressor.compress(data) + compressor.flush()


def decompress(stream: bytes) -> bytes:
    """A zlib stream inflated, with the preset dictionary its header names (if any).

    :raises zlib.error: If it names a dictionary not in :data:`DICTIONARIES`, or is damaged.
    """
    if len(stream) >= 6 and stream[1] & 0x20:  # FDICT: the dictionary's Adler-32 follows
        zdict = DICTIONARIES.get(int.from_bytes(stream[2:6], "big"))
        if zdict is None:
            raise zlib.error("sealed with an unknown preset dictionary")
        inflater = zlib.decompressobj(zdict=zdict)
        return inflater.decompress(stream) + inflater.flush()
    return zlib.decompress(stream)


class Sealer:
    """Compresses and encrypts documents (compact JSON, zlib level 6 against a preset
    dictionary, AES-256-GCM with a fresh
    96-bit nonce), each table under its own key (module docstring).

    :param keys: The keyring, or one 32-byte key (:meth:`Keyring.single`).
    :param refresh: Reads the keyring again (the state-key secret): called when the keyring is
        :data:`REFRESH_SECONDS` old, and when a blob names a version it does not hold. A
        failed refresh keeps the keyring in use.
    :param monotonic: The clock of the refreshes (tests).
    :param dictionary: Whether :meth:`seal` deflates against the preset dictionary
        (``SEAL_DICTIONARY``, the template's ``SealDictionary``): off while a stage still runs
        a release that cannot inflate such a stream (``docs/deploy.md``). Every sealer opens
        both.

    >>> sealer = Sealer(bytes(32))
    >>> blob = sealer.seal({"a": 1}, "t1")
    >>> blob[:4], sealer.open(blob, "t1")
    (b'NK\\x00\\x01', {'a': 1})
    """

    def __init__(self, keys: Keyring | bytes, *, refresh: Callable[[], Keyring] | None = None,
                 refresh_seconds: float = REFRESH_SECONDS,
                 monotonic: Callable[[], float] = time.monotonic, dictionary: bool = True):
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if isinstance(keys, bytes | bytearray):
            if len(keys) != 32:
                raise ValueError("the table state key must be 32 bytes (AES-256)")
            keys = Keyring.single(bytes(keys))
        self._aesgcm = AESGCM
        self.dictionary = dictionary
        self._refresh = refresh
        self._refresh_seconds = refresh_seconds
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._keys: OrderedDict[tuple[int, str], AESGCM] = OrderedDict()
        self._keyring = keys
        self._loaded_at = monotonic()
        self._tried_at: float | None = None
        self.derivations = 0
        """Table keys derived so far (the cache's misses)."""

    @property
    def keyring(self) -> Keyring:
        """The keyring in use."""
        return self._keyring

    # -- sealing and opening -------------------------------------------------------------------

    def seal(self, document: dict[str, Any], table_id: str, purpose: str = "") -> bytes:
        """Seal *document* for *table_id* (and *purpose*) with the current key version."""
        keyring = self._fresh_keyring()
        version = keyring.current
        header = MAGIC + version.to_bytes(2, "big")
        plain = compress(json.dumps(document, separators=(",", ":")).encode(), self.dictionary)
        nonce = os.urandom(NONCE_BYTES)
        aead = self._key(keyring, version, table_id)
        return header + nonce + aead.encrypt(nonce, plain, header + (table_id + purpose).encode())

    def open(self, blob: bytes, table_id: str, purpose: str = "") -> dict[str, Any]:
        """The document sealed in *blob* for *table_id* and *purpose*.

        :raises UnknownKeyVersion: If *blob* was sealed with a key version the keyring does
            not hold (even after re-reading it).
        :raises cryptography.exceptions.InvalidTag: If *blob* was sealed for something else,
            or damaged.
        """
        return self.open_versioned(blob, table_id, purpose)[0]

    def open_versioned(self, blob: bytes, table_id: str,
                       purpose: str = "") -> tuple[dict[str, Any], int]:
        """:meth:`open`, and the key version that opened *blob* (0 for a legacy blob, even one
        whose nonce looks like a header).
        """
        from cryptography.exceptions import InvalidTag

        plain: bytes | None = None
        version = key_version(blob)
        aad = (table_id + purpose).encode()
        unknown: UnknownKeyVersion | None = None
        if version != LEGACY_VERSION:
            keyring = self._keyring_with(version)
            if version in keyring.masters:
                try:
                    plain = self._key(keyring, version, table_id).decrypt(
                        blob[HEADER_BYTES:HEADER_BYTES + NONCE_BYTES],
                        blob[HEADER_BYTES + NONCE_BYTES:], blob[:HEADER_BYTES] + aad)
                except InvalidTag:
                    if LEGACY_VERSION not in keyring.masters:
                        raise
            else:
                unknown = UnknownKeyVersion(version, keyring.versions)
        if plain is None:  # a legacy blob (perhaps one whose nonce starts with "NK")
            version = LEGACY_VERSION
            keyring = self._keyring
            if LEGACY_VERSION not in keyring.masters:
                raise unknown or UnknownKeyVersion(LEGACY_VERSION, keyring.versions)
            try:
                plain = self._key(keyring, LEGACY_VERSION, table_id).decrypt(
                    blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad)
            except InvalidTag:
                if unknown is not None:
                    raise unknown from None
                raise
        document: dict[str, Any] = json.loads(decompress(plain))
        return document, version

    # -- keys ----------------------------------------------------------------------------------

    def _key(self, keyring: Keyring, version: int, table_id: str) -> AESGCM:
        if version == LEGACY_VERSION:
            table_id = ""  # one key for every table
        cache_key = (version, table_id)
        with self._lock:
            aead = self._keys.get(cache_key)
            if aead is not None:
                self._keys.move_to_end(cache_key)
                return aead
        master = keyring.masters[version]
        key = master if version == LEGACY_VERSION else derive_table_key(master, table_id)
        aead = self._aesgcm(key)
        with self._lock:
            self.derivations += 1
            self._keys[cache_key] = aead
            while len(self._keys) > KEY_CACHE_SIZE:
                self._keys.popitem(last=False)
        return aead

    def _fresh_keyring(self) -> Keyring:
        """The keyring, re-read first when it is :data:`REFRESH_SECONDS` old."""
        if self._refresh is not None \
                and self._monotonic() - self._loaded_at >= self._refresh_seconds:
            self._reload()
        return self._keyring

    def _keyring_with(self, version: int) -> Keyring:
        """The keyring, re-read first if it lacks *version* (at most every
        :data:`UNKNOWN_VERSION_REFRESH_GAP` seconds) or is old."""
        keyring = self._fresh_keyring()
        if version in keyring.masters or self._refresh is None:
            return keyring
        now = self._monotonic()
        if self._tried_at is None or now - self._tried_at >= UNKNOWN_VERSION_REFRESH_GAP:
            self._reload()
        return self._keyring

    def _reload(self) -> None:
        assert self._refresh is not None
        now = self._monotonic()
        self._tried_at = now
        try:
            keyring = self._refresh()
        except Exception:  # keep sealing with what we have; try again in a minute
            self._loaded_at = now - self._refresh_seconds + min(60.0, self._refresh_seconds)
            return
        self.replace(keyring, now)

    def replace(self, keyring: Keyring, now: float | None = None) -> None:
        """Use *keyring* from now on (keys of versions it keeps stay cached)."""
        with self._lock:
            for cached in [k for k in self._keys if k[0] not in keyring.masters
                           or keyring.masters[k[0]] != self._keyring.masters.get(k[0])]:
                del self._keys[cached]
            self._keyring = keyring
            self._loaded_at = self._monotonic() if now is None else now
