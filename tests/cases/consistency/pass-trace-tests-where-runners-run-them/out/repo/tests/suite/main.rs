mod resume;
