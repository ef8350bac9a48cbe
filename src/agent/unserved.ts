import type { ProjectOrigin } from '../config/projects.js';

// What is said of a job whose project the app no longer serves (its round ended `disconnected`; a message for it),
// by where the app's projects are set (`projectOrigin`): a workspace disconnected it in App Home, or the app's
// configuration no longer names it. The path is the same (no key for it: `not_connected`); only the words differ.

export interface Unserved {
  /** The status line's words. */
  status: string;
  /** After "project `x`": what became of it. */
  gone: string;
  /** Who took it away, in brackets, when that is known. */
  cause: string;
  /** How it is served again, to a person (a sentence). */
  remedy: string;
  /** The same as a clause before "reply in this thread to pick it up again" (mrkdwn). */
  once: string;
  /** After "once it is", in plain text. */
  back: string;
}

const UNSERVED: Record<ProjectOrigin, Unserved> = {
  connected: {
    status: 'Tracking stopped: Mintlify disconnected',
    gone: 'is not connected to Mintlify in this workspace any more',
    cause: ' (an admin disconnected it or connected another project)',
    remedy: 'An admin can connect it in my *Home* tab.',
    once: 'Once the project is connected again in my *Home* tab',
    back: 'connected again',
  },
  configured: {
    status: 'Tracking stopped: project no longer configured',
    gone: 'is no longer configured for this app',
    cause: '',
    remedy: 'Ask whoever runs this app to add it back.',
    once: 'Once whoever runs this app adds the project back',
    back: 'added back',
  },
};

export const unserved = (origin: ProjectOrigin): Unserved => UNSERVED[origin];
