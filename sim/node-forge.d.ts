/**
 * The part of node-forge (a devDependency without bundled types) that sim/tls.ts uses to make
 * the simulator's CA, server and client certificates.
 */
declare module 'node-forge' {
  namespace pki {
    interface PublicKey {
      readonly n: unknown;
    }
    interface PrivateKey {
      readonly d: unknown;
    }
    interface CertificateField {
      name?: string;
      shortName?: string;
      value: string;
    }
    interface Certificate {
      publicKey: PublicKey;
      serialNumber: string;
      validity: { notBefore: Date; notAfter: Date };
      setSubject(attributes: CertificateField[]): void;
      setIssuer(attributes: CertificateField[]): void;
      setExtensions(extensions: Record<string, unknown>[]): void;
      sign(key: PrivateKey, digest: md.MessageDigest): void;
    }
    function publicKeyFromPem(pem: string): PublicKey;
    function privateKeyFromPem(pem: string): PrivateKey;
    function createCertificate(): Certificate;
    function certificateToPem(certificate: Certificate): string;
  }
  namespace md {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface MessageDigest {}
    namespace sha256 {
      function create(): MessageDigest;
    }
  }
  /** A subject or issuer attribute. */
  export type CertificateField = pki.CertificateField;
  const forge: { pki: typeof pki; md: typeof md };
  export default forge;
}
