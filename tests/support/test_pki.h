// A throwaway certificate authority for TLS tests: a CA, a server certificate for 127.0.0.1
// and localhost, and a client certificate, made with OpenSSL at run time (nothing secret
// is committed, nothing expires in the repository).
#ifndef GPUA_TESTS_SUPPORT_TEST_PKI_H_
#define GPUA_TESTS_SUPPORT_TEST_PKI_H_

#include <string>

namespace gpua::testing {

struct TestPki {
  std::string ca_cert;
  std::string server_cert;
  std::string server_key;
  std::string client_cert;
  std::string client_key;
};

// All PEM. Each call makes a new, unrelated CA.
TestPki MakeTestPki();

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_TEST_PKI_H_
