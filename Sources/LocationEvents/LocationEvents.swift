// LocationEvents module
