"""(being written) ranking measures."""
