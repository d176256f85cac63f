"""(being written) msi measures."""
