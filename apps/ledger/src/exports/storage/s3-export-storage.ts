import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { ExportFile, exportFileKey, ExportStorage } from './export-storage';

export interface S3ExportStorageOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  /** Host the download URLs are presigned for, when clients reach the service elsewhere than the ledger does. */
  publicEndpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** Objects live under this prefix of the bucket. */
const PREFIX = 'exports/';
/** S3's smallest multipart part; with QUEUE_SIZE parts in flight, an upload buffers at most ~10 MB. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

function clientFor(options: S3ExportStorageOptions, endpoint: string | undefined): S3Client {
  return new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(endpoint && { endpoint }),
    ...(options.credentials && { credentials: options.credentials }),
    // Checksums only where S3 requires them: several S3-compatible servers refuse the SDK's
    // default trailing checksums on streamed uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * Export files in S3-compatible object storage (AWS S3, MinIO, ...). Files stream up as a
 * multipart upload; downloads are presigned GET URLs, so the bucket can stay private.
 */
export class S3ExportStorage implements ExportStorage {
  private readonly client: S3Client;
  private readonly presigner: S3Client;

  constructor(private readonly options: S3ExportStorageOptions) {
    this.client = clientFor(options, options.endpoint);
    this.presigner = options.publicEndpoint ? clientFor(options, options.publicEndpoint) : this.client;
  }

  async put(file: ExportFile, body: Readable): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: PREFIX + exportFileKey(file), Body: body, ContentType: 'application/x-ndjson' },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      // A failed upload removes its parts instead of leaving them billed in the bucket.
      leavePartsOnError: false,
    });
    await upload.done();
  }

  async downloadUrl(file: ExportFile, expiresAt: Date): Promise<string> {
    const expiresIn = Math.max(1, Math.ceil((expiresAt.getTime() - Date.now()) / 1000));
    return getSignedUrl(this.presigner, this.getCommand(file), { expiresIn });
  }

  async open(file: ExportFile): Promise<Readable> {
    const object = await this.client.send(this.getCommand(file));
    return object.Body as Readable;
  }

  private getCommand(file: ExportFile): GetObjectCommand {
    return new GetObjectCommand({ Bucket: this.options.bucket, Key: PREFIX + exportFileKey(file) });
  }
}
