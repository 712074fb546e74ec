/** Paths of the resources an async job reports, shared by the HTTP routes and the workers. */

/** Path of a rendered file's download. */
export const fileUrlPath = (fileId: string) => `/api/pdfs/files/${fileId}`;
/** Path of a job's status. */
export const jobStatusPath = (jobId: string) => `/api/pdfs/jobs/${jobId}`;
