#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/err.h>
