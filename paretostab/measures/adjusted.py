"""(being written) adjusted measures."""
