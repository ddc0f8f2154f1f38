"""dyliberator: generates wrapper libraries that trace calls into a shared library."""
