// Placeholder translation unit for modules that are header-only so far.
