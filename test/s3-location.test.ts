/** `--files s3://bucket/prefix` and the AWS_* variables, parsed into what s3Blobs takes. */
import { describe, expect, it } from 'vitest';
import { filesLocationField, parseFilesLocation, s3Connection } from '../src/store/files/s3-location.js';

describe('parseFilesLocation', () => {
  it('gives the bucket and the prefix', () => {
    expect(parseFilesLocation('s3://my-bucket/pdfs')).toEqual({ bucket: 'my-bucket', prefix: 'pdfs' });
    expect(parseFilesLocation('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', prefix: 'a/b' });
    expect(parseFilesLocation('s3://my.bucket')).toEqual({ bucket: 'my.bucket', prefix: '' });
    expect(parseFilesLocation('S3://my-bucket/')).toEqual({ bucket: 'my-bucket', prefix: '' });
  });

  it('names what is wrong', () => {
    const problem = (text: string) => (parseFilesLocation(text) as { problem: string }).problem;
    expect(problem('https://my-bucket/pdfs')).toMatch(/must start with s3:\/\/ \(got the scheme "https:\/\/"\)/);
    expect(problem('my-bucket/pdfs')).toMatch(/must be an S3 location such as "s3:\/\/my-bucket\/pdfs"/);
    expect(problem('s3:///pdfs')).toMatch(/names no bucket/);
    expect(problem('s3://My_Bucket/pdfs')).toMatch(/"My_Bucket" is not a bucket name/);
    expect(problem('s3://key:secret@bucket/pdfs')).toMatch(/no credentials or port here/);
    expect(problem('s3://bucket/a//b')).toMatch(/empty, "." or ".." part/);
    expect(problem('s3://bucket/../b')).toMatch(/empty, "." or ".." part/);
  });

  it('is a zod field for the config', () => {
    expect(filesLocationField.parse('s3://b-1/x')).toEqual({ bucket: 'b-1', prefix: 'x' });
    const result = filesLocationField.safeParse('file:///tmp');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/must start with s3:\/\//);
  });

  it('reads region, endpoint and credentials from the AWS_* variables', () => {
    expect(s3Connection({})).toEqual({ region: 'us-east-1' });
    expect(
      s3Connection({
        AWS_REGION: 'eu-west-3',
        AWS_ACCESS_KEY_ID: 'k',
        AWS_SECRET_ACCESS_KEY: 's',
        AWS_SESSION_TOKEN: 't',
      }),
    ).toEqual({
      region: 'eu-west-3',
      credentials: { accessKeyId: 'k', secretAccessKey: 's', sessionToken: 't' },
    });
    // A key without its secret is left to the SDK's chain, which will say what is missing.
    expect(s3Connection({ AWS_DEFAULT_REGION: 'ap-south-1', AWS_ACCESS_KEY_ID: 'k' })).toEqual({
      region: 'ap-south-1',
    });
    expect(s3Connection({ AWS_ENDPOINT_URL: 'http://127.0.0.1:9000' })).toEqual({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9000',
    });
    expect(
      s3Connection({ AWS_ENDPOINT_URL: 'http://a:1', AWS_ENDPOINT_URL_S3: 'https://s3.example.com' }),
    ).toMatchObject({
      endpoint: 'https://s3.example.com',
    });
    expect(() => s3Connection({ AWS_ENDPOINT_URL_S3: 'ftp://files' })).toThrow(
      /AWS_ENDPOINT_URL_S3: must be an http:\/\/ or https:\/\/ URL .*\(got "ftp:\/\/files"\)/,
    );
  });
});
