/** The Service page's route parameters, shared by its layout and page. */

/** `/services/[namespace]/[name]`, still percent-encoded. */
export type ServiceParams = { namespace: string; name: string };

/** A path segment decoded (the raw segment when it does not decode). */
export function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
