/** Paths of the resources the API reports (a file to download, a job to poll), shared by the routes and the webhook events the store writes. */

/** Path of a rendered file's download. */
export const fileUrlPath = (fileId: string) => `/api/pdfs/files/${fileId}`;
/** Path of a job's status. */
export const jobStatusPath = (jobId: string) => `/api/pdfs/jobs/${jobId}`;
