"""What the adapters share: ids, times, JSON in and out, the loom source record."""
