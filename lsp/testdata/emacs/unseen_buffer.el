;;; unseen_buffer.el --- an agentls edit of a buffer agentls does not manage  -*- lexical-binding: t; -*-

;; Run by TestEmacsUnseenBuffer after eglot and editors/emacs/agentls.el,
;; set up as the README's block does (agentls manages Markdown buffers
;; only).  a.go is visited in a buffer agentls does not manage, and the
;; user adds a line above `const A' without saving; then a reply changing
;; `const B = 2' (computed by the server against the disk, sent with
;; version null) is applied from reply.md.  Applied by position, it would
;; change `const A' instead.  The edit must not land: the buffer keeps
;; the user's text, the server is told applied: false and says the change
;; waits as pending review.  Prints OK and exits 0, or FAIL: and exits 1.

(defun agentls-test-fail (fmt &rest args)
  (princ (concat "FAIL: " (apply #'format fmt args) "\n") #'external-debugging-output)
  (when-let ((server (and (fboundp 'agentls--server) (agentls--server t))))
    (with-current-buffer (jsonrpc-events-buffer server)
      (princ (buffer-substring-no-properties (max (point-min) (- (point-max) 20000)) (point-max))
             #'external-debugging-output)))
  (kill-emacs 1))

(defun agentls-test-wait (what pred &optional seconds)
  (let ((deadline (+ (float-time) (or seconds 15))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (agentls-test-fail "timed out waiting for %s" what))))

(defun agentls-test-text (buf)
  (with-current-buffer buf (buffer-substring-no-properties (point-min) (point-max))))

(defvar agentls-test-messages nil)
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key message &allow-other-keys)
  (push message agentls-test-messages))

(defun agentls-test-message-p (regexp)
  (seq-some (lambda (m) (string-match-p regexp m)) agentls-test-messages))

(condition-case err
    (let* ((root (file-name-as-directory (getenv "AGENTLS_ROOT")))
           (default-directory root)
           (modified "package p\n\nconst Z = 0\nconst A = 1\nconst B = 2\n"))
      (setq case-fold-search nil
            eglot-confirm-server-initiated-edits nil
            eglot-sync-connect t
            eglot-send-changes-idle-time 0
            agentls-program (list (getenv "AGENTLS_BIN"))
            agentls-ensure nil)
      (agentls-setup)
      (let ((a (find-file-noselect (expand-file-name "a.go" root)))
            (reply (find-file-noselect (expand-file-name "reply.md" root))))
        (with-current-buffer reply
          (apply #'eglot (eglot--guess-contact))
          (unless (agentls--server t) (agentls-test-fail "agentls did not start")))
        (with-current-buffer a
          (when (and (bound-and-true-p eglot--managed-mode) (eq (eglot-current-server) (agentls--server)))
            (agentls-test-fail "a.go is managed by agentls: the test needs a buffer it cannot see"))
          ;; The user's unsaved line above const A.
          (goto-char (point-min))
          (search-forward "const A")
          (beginning-of-line)
          (insert "const Z = 0\n")
          (unless (equal (agentls-test-text a) modified)
            (agentls-test-fail "a.go before the reply: %S" (agentls-test-text a))))
        (with-current-buffer reply
          (goto-char (point-max))
          (insert (getenv "AGENTLS_REPLY"))
          (agentls-apply-reply))
        (agentls-test-wait "the server's answer"
                           (lambda () (or (agentls-test-message-p "applied\\|refused\\|nothing")
                                          (not (equal (agentls-test-text a) modified)))))
        ;; Let a late edit land, if one is on its way.
        (agentls-test-wait "the server's message" (lambda () agentls-test-messages))
        (unless (equal (agentls-test-text a) modified)
          (agentls-test-fail "the edit landed in a buffer agentls cannot see: %S (messages %S)"
                             (agentls-test-text a) agentls-test-messages))
        (unless (agentls-test-message-p "refused the edit (a\\.go has unsaved changes in a buffer agentls does not manage")
          (agentls-test-fail "the server's message does not give the reason: %S" agentls-test-messages))
        (princ (format "message: %s\n" (car agentls-test-messages)))
        (unless (agentls-test-message-p "pending review")
          (agentls-test-fail "the server did not keep the change as pending review: %S" agentls-test-messages))
        (with-temp-buffer
          (insert-file-contents (expand-file-name "a.go" root))
          (unless (equal (buffer-string) "package p\n\nconst A = 1\nconst B = 2\n")
            (agentls-test-fail "a.go on disk changed: %S" (buffer-string))))
        (princ "OK\n")
        (ignore-errors (eglot-shutdown (agentls--server)))
        (kill-emacs 0)))
  (error (agentls-test-fail "%s" (error-message-string err))))

;;; unseen_buffer.el ends here
