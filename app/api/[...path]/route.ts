/** Any other path under `/api`: a JSON 404 (`not-found:api`) instead of the HTML not-found page. */
import { errorResponse } from '@/lib/server/http';

export const dynamic = 'force-dynamic';

const notFound = (): Response => errorResponse(404, 'not-found', 'api', 'No such API endpoint; see docs/api.md.');
export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE, notFound as OPTIONS };
