/** The file inside the multipart body the SDK sent to the upload URL (or the body itself if not multipart). */
export async function uploadedText(raw: string): Promise<string> {
  const boundary = /^--(\S+)\r\n/.exec(raw)?.[1];
  if (!boundary) return raw;
  const form = await new Response(raw, {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  }).formData();
  const file = [...form.values()][0];
  return typeof file === 'string' ? file : ((await file?.text()) ?? '');
}
