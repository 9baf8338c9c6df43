#include "tests/support/test_pki.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>
#include <stdexcept>

namespace gpua::testing {
namespace {

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

void Check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test PKI: ") + what);
}

Key NewKey() {
  Key key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  Check(key != nullptr, "EC key");
  return key;
}

void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  Check(ext != nullptr, "extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

// Signs a certificate for `key` named `cn`; self-signed when issuer is null.
Cert Issue(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key, long serial, bool ca,
           const char* san) {
  Cert cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  AddExtension(cert.get(), signer, NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE");
  AddExtension(cert.get(), signer, NID_key_usage,
               ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
  if (san != nullptr) AddExtension(cert.get(), signer, NID_subject_alt_name, san);
  Check(X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0, "sign");
  return cert;
}

std::string Pem(const std::function<int(BIO*)>& write) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  Check(write(bio.get()) == 1, "PEM");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

std::string CertPem(X509* cert) {
  return Pem([&](BIO* b) { return PEM_write_bio_X509(b, cert); });
}

std::string KeyPem(EVP_PKEY* key) {
  return Pem([&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr);
  });
}

}  // namespace

TestPki MakeTestPki() {
  static long serial = 1;
  Key ca_key = NewKey(), server_key = NewKey(), client_key = NewKey();
  Cert ca =
      Issue(ca_key.get(), "gpu-autoscaler test CA", nullptr, nullptr, serial++, true, nullptr);
  Cert server = Issue(server_key.get(), "plugin", ca.get(), ca_key.get(), serial++, false,
                      "IP:127.0.0.1,DNS:localhost");
  Cert client =
      Issue(client_key.get(), "gpu-autoscaler", ca.get(), ca_key.get(), serial++, false, nullptr);
  return {CertPem(ca.get()), CertPem(server.get()), KeyPem(server_key.get()), CertPem(client.get()),
          KeyPem(client_key.get())};
}

}  // namespace gpua::testing
