"""The package's version, from one source: its installed metadata."""

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("paretostab")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"
